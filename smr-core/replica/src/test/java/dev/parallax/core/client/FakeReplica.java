package dev.parallax.core.client;

import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import dev.parallax.core.config.Member;
import dev.parallax.core.wire.ClientWire;
import dev.parallax.core.wire.Frames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A stand-in replica for client tests: accepts connections on a loopback port, decodes requests
 * and lets a {@link Behavior} answer them with hand-made replies (or not at all). Every request
 * received is recorded in arrival order. Threads: one acceptor, one reader per connection.
 */
final class FakeReplica implements AutoCloseable {
    /** How the fake answers one request; runs on the connection's reader thread. */
    interface Behavior {
        void onRequest(ClientWire.Request request, Replies out) throws IOException;
    }

    /** Writes replies on one connection. */
    static final class Replies {
        private final OutputStream out;

        Replies(OutputStream out) {
            this.out = out;
        }

        void ok(long sequence, String reply) throws IOException {
            ByteBuf b = Unpooled.buffer();
            ClientWire.writeOk(b, sequence, java.nio.ByteBuffer.wrap(reply.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            send(b);
        }

        /** An OK reply naming the command's stream (a GROUP_REPLY unless it is the default group). */
        void ok(CommandId id, String reply) throws IOException {
            ByteBuf b = Unpooled.buffer();
            ClientWire.writeOk(b, id, java.nio.ByteBuffer.wrap(reply.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            send(b);
        }

        /** A gap in the stream of {@code id}. */
        void retryFrom(CommandId id, long next) throws IOException {
            ByteBuf b = Unpooled.buffer();
            ClientWire.writeRetryFrom(b, id, next);
            send(b);
        }

        void redirect(long sequence, int leader) throws IOException {
            ByteBuf b = Unpooled.buffer();
            ClientWire.writeRedirect(b, sequence, leader);
            send(b);
        }

        void retryFrom(long sequence, long next) throws IOException {
            ByteBuf b = Unpooled.buffer();
            ClientWire.writeRetryFrom(b, sequence, next);
            send(b);
        }

        void message(long sequence, int status, String message) throws IOException {
            ByteBuf b = Unpooled.buffer();
            ClientWire.writeMessage(b, sequence, status, message);
            send(b);
        }

        private void send(ByteBuf b) throws IOException {
            byte[] bytes = new byte[b.readableBytes()];
            b.readBytes(bytes);
            out.write(bytes);
            out.flush();
        }
    }

    /** A request as received, with the connection it came on (1 for the first connection). */
    record Received(int connection, long clientId, GroupSet groups, long sequence, String payload) {
        /** A request for a default-group command. */
        Received(int connection, long clientId, long sequence, String payload) {
            this(connection, clientId, GroupSet.DEFAULT, sequence, payload);
        }
    }

    private final ServerSocket server;
    private final Behavior behavior;
    private final BlockingQueue<Received> received = new ArrayBlockingQueue<>(10_000);
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    FakeReplica(Behavior behavior) throws IOException {
        this.behavior = behavior;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptAll, "fake-replica-accept-" + server.getLocalPort());
        acceptor.start();
    }

    /** This fake as endpoint {@code id} of a client's endpoint list. */
    Member member(int id) {
        return new Member(id, "127.0.0.1", server.getLocalPort());
    }

    /** The requests received so far, in order, and those still to come (blocking take). */
    BlockingQueue<Received> received() {
        return received;
    }

    private void acceptAll() {
        int n = 0;
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                sockets.add(s);
                int connection = ++n;
                Thread reader = new Thread(() -> serve(s, connection), "fake-replica-conn-" + connection);
                reader.setDaemon(true);
                reader.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket s, int connection) {
        try (s) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            Replies out = new Replies(s.getOutputStream());
            while (true) {
                int length = in.readInt();
                byte[] frame = new byte[length];
                in.readFully(frame);
                ByteBuf b = Unpooled.wrappedBuffer(frame);
                ClientWire.Request r = ClientWire.readRequest(Frames.readType(b), b, 1 << 20);
                String payload = java.nio.charset.StandardCharsets.UTF_8.decode(r.payload()).toString();
                received.add(new Received(connection, r.clientId(), r.groups(), r.sequence(), payload));
                behavior.onRequest(new ClientWire.Request(r.clientId(), r.groups(), r.sequence(),
                        java.nio.ByteBuffer.wrap(payload.getBytes(java.nio.charset.StandardCharsets.UTF_8))), out);
            }
        } catch (EOFException | SocketException e) {
            // the client closed or moved on
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
        try {
            acceptor.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
