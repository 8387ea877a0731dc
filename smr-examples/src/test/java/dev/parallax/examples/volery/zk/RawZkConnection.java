package dev.parallax.examples.volery.zk;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import org.apache.jute.BinaryInputArchive;
import org.apache.jute.BinaryOutputArchive;
import org.apache.jute.Record;
import org.apache.zookeeper.proto.ConnectRequest;
import org.apache.zookeeper.proto.ConnectResponse;
import org.apache.zookeeper.proto.ReplyHeader;
import org.apache.zookeeper.proto.RequestHeader;

/** A raw socket speaking ZooKeeper frames by hand (jute records), for what no client library sends. */
final class RawZkConnection implements AutoCloseable {
    final Socket socket;
    private final DataInputStream in;

    RawZkConnection(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout((int) ZkTesting.WAIT_SECONDS * 1000);
        in = new DataInputStream(socket.getInputStream());
    }

    /** The records' bytes, without a length prefix. */
    static byte[] serialize(Record... records) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryOutputArchive archive = BinaryOutputArchive.getArchive(out);
        for (Record r : records) {
            r.serialize(archive, "r");
        }
        return out.toByteArray();
    }

    /** Sends {@code payload} behind its 4-byte length. */
    void sendFrame(byte[] payload) throws IOException {
        sendRaw(ByteBuffer.allocate(4 + payload.length).putInt(payload.length).put(payload).array());
    }

    void sendRaw(byte[] bytes) throws IOException {
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
    }

    /** Sends a request frame: header and body. */
    void sendRequest(int xid, int type, Record body) throws IOException {
        sendFrame(body == null ? serialize(new RequestHeader(xid, type)) : serialize(new RequestHeader(xid, type), body));
    }

    /** Reads one frame's payload. */
    byte[] readFrame() throws IOException {
        int length = in.readInt();
        byte[] payload = new byte[length];
        in.readFully(payload);
        return payload;
    }

    /** Sends a ConnectRequest (with the readOnly flag) and reads the response. */
    ConnectResponse handshake(long sessionId, byte[] password, int timeoutMs) throws IOException {
        return handshake(sessionId, password, timeoutMs, 0);
    }

    /** {@link #handshake(long, byte[], int)} telling the server the last zxid the client has seen. */
    ConnectResponse handshake(long sessionId, byte[] password, int timeoutMs, long lastZxidSeen) throws IOException {
        sendFrame(serialize(new ConnectRequest(0, lastZxidSeen, timeoutMs, sessionId, password, false)));
        return readConnectResponse();
    }

    ConnectResponse readConnectResponse() throws IOException {
        return read(readFrame(), new ConnectResponse());
    }

    /** Reads one reply: its header, and the body into {@code body} if the reply is a success. */
    ReplyHeader readReply(Record body) throws IOException {
        BinaryInputArchive archive = BinaryInputArchive.getArchive(new java.io.ByteArrayInputStream(readFrame()));
        ReplyHeader header = new ReplyHeader();
        header.deserialize(archive, "header");
        if (body != null && header.getErr() == 0) {
            body.deserialize(archive, "body");
        }
        return header;
    }

    static <T extends Record> T read(byte[] bytes, T record) throws IOException {
        record.deserialize(BinaryInputArchive.getArchive(new java.io.ByteArrayInputStream(bytes)), "r");
        return record;
    }

    /** Whether the server closed the connection: reads (and drops) until end of stream. */
    boolean closedByServer() throws IOException {
        try {
            while (in.read() >= 0) {
                // drop whatever came before the close
            }
            return true;
        } catch (EOFException | SocketException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
