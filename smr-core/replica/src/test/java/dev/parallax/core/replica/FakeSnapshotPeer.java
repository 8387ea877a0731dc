package dev.parallax.core.replica;

import dev.parallax.core.wire.ClientWire;
import dev.parallax.core.wire.Frames;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;

/**
 * A peer that is not a replica: a plain loopback socket server that speaks the snapshot frames
 * ({@code length:4 version:1 type:1 body}) and answers the first {@code SNAPSHOT_REQUEST} of each
 * connection with a {@link Script}, as a party on the path to a replica's client port (or one
 * that can reach it and claim a peer's address) would. Connections are served one at a time, in
 * the order they arrive.
 *
 * <p>Threads: one daemon thread accepts and serves; {@link #close} from any thread.
 */
final class FakeSnapshotPeer implements AutoCloseable {
    /** What the peer sends back for one request. */
    @FunctionalInterface
    interface Script {
        /**
         * @param connection the connection's number, from 0
         * @param request    the whole request frame, header included
         * @param out        the connection's output
         */
        void answer(int connection, byte[] request, OutputStream out) throws IOException;
    }

    private final ServerSocket server;
    private final Thread thread;

    FakeSnapshotPeer(Script script) throws IOException {
        server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        thread = new Thread(() -> serve(script), "fake-snapshot-peer");
        thread.setDaemon(true);
        thread.start();
    }

    int port() {
        return server.getLocalPort();
    }

    private void serve(Script script) {
        for (int connection = 0; !server.isClosed(); connection++) {
            try (Socket s = server.accept()) {
                s.setSoTimeout(20_000);
                DataInputStream in = new DataInputStream(s.getInputStream());
                OutputStream out = s.getOutputStream();
                script.answer(connection, readFrame(in), out);
                out.flush();
                while (in.read() >= 0) {
                    // until the fetcher closes: it reads everything sent first
                }
            } catch (IOException e) {
                // closed, or the fetcher went away: next connection
            }
        }
    }

    /** One whole frame from {@code in}, header included. */
    static byte[] readFrame(InputStream in) throws IOException {
        DataInputStream d = new DataInputStream(in);
        int length = d.readInt();
        byte[] frame = new byte[4 + length];
        ByteBuffer.wrap(frame).putInt(length);
        d.readFully(frame, 4, length);
        return frame;
    }

    /** The type byte of a whole frame. */
    static int type(byte[] frame) {
        return frame[5] & 0xff;
    }

    /** A frame of {@code type} with {@code body}. */
    static byte[] frame(int type, byte[] body) {
        return ByteBuffer.allocate(Frames.HEADER + body.length).putInt(body.length + 2).put(Frames.VERSION)
                .put((byte) type).put(body).array();
    }

    /** {@code file} as CHUNK frames of {@link SnapshotServer#CHUNK} bytes. */
    static byte[] chunks(byte[] file) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int at = 0; at < file.length; at += SnapshotServer.CHUNK) {
            byte[] piece = java.util.Arrays.copyOfRange(file, at, Math.min(file.length, at + SnapshotServer.CHUNK));
            out.writeBytes(frame(ClientWire.SNAPSHOT_CHUNK, piece));
        }
        return out.toByteArray();
    }

    /**
     * Reads frames from {@code in} up to and including an END or ERROR frame.
     *
     * @return those frames' bytes, as they arrived
     */
    static byte[] readTransfer(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        while (true) {
            byte[] f;
            try {
                f = readFrame(in);
            } catch (EOFException e) {
                throw new IOException("the peer closed after " + all.size() + " bytes", e);
            }
            all.writeBytes(f);
            if (type(f) == ClientWire.SNAPSHOT_END || type(f) == ClientWire.SNAPSHOT_ERROR) {
                return all.toByteArray();
            }
        }
    }

    @Override
    public void close() throws Exception {
        server.close();
        thread.join(10_000);
    }
}
