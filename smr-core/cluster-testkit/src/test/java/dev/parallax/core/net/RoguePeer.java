package dev.parallax.core.net;

import dev.parallax.core.testkit.TextCodec;

import dev.parallax.core.wire.BodyReader;
import dev.parallax.core.wire.Frames;
import dev.parallax.core.config.Member;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A process that is not a replica but speaks the replica port's wire: it opens a connection (plain
 * or through a socket the caller wrapped in TLS), says HELLO as replica {@code claimedId},
 * announces a channel and sends one message on it, as a replica would. Tests use it to show what
 * the port accepts from a stranger. Blocking; one thread.
 */
final class RoguePeer {
    private RoguePeer() {
    }

    /** Connects a plain TCP socket to {@code to}. */
    static Socket connect(Member to) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(to.host(), to.port()), 10_000);
        s.setSoTimeout(30_000);
        return s;
    }

    /**
     * The bytes a replica {@code claimedId} of an {@code members}-member cluster sends to open a
     * connection and deliver {@code text} on channel {@code channel} (codec: length-prefixed UTF-8
     * of type 1, as {@code TextCodec.INSTANCE}).
     */
    static byte[] forgedFrames(int claimedId, int members, String channel, String text) {
        ByteBuf b = Unpooled.buffer();
        Frames.writeHeader(b, ReplicaPort.HELLO, 9);
        b.writeByte(ReplicaPort.CONTROL).writeInt(claimedId).writeInt(members);
        byte[] name = channel.getBytes(StandardCharsets.UTF_8);
        int at = Frames.startFrame(b, ReplicaPort.ANNOUNCE);
        b.writeByte(ReplicaPort.CONTROL).writeByte(1).writeInt(name.length).writeBytes(name);
        Frames.finishFrame(b, at);
        at = Frames.startFrame(b, 1);
        b.writeByte(1);
        BodyReader.writeBuffer(b, ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
        Frames.finishFrame(b, at);
        byte[] bytes = new byte[b.readableBytes()];
        b.readBytes(bytes);
        return bytes;
    }

    /** Writes {@code bytes} and waits until the other end closes the connection (or 30 s pass). */
    static void sendAndAwaitClose(Socket s, byte[] bytes) throws IOException {
        OutputStream out = s.getOutputStream();
        try {
            out.write(bytes);
            out.flush();
        } catch (SocketException | javax.net.ssl.SSLException e) {
            return; // refused while writing: closed all the same
        }
        awaitClose(s);
    }

    /** Reads until end of stream, a reset or a TLS alert: the other end closed the connection. */
    static void awaitClose(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        try {
            while (in.read() != -1) {
                // a replica port sends nothing on an inbound connection
            }
        } catch (SocketException | javax.net.ssl.SSLException closed) {
            // closed with a reset or an alert
        }
    }
}
