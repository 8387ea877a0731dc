package dev.parallax.core.testkit.cluster;

import dev.parallax.core.StateMachine;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A small text key-value state machine for replica tests: {@code SET k v} (replies the old value),
 * {@code GET k}, {@code APPEND k s}, and {@code FAIL msg}, which throws (the command is rejected,
 * state unchanged). Single-threaded (the replica's delivery thread), deterministic, never blocks.
 */
public final class TextKv implements StateMachine {
    /**
     * The current data, in key order; read it only when the replica is quiet or from its delivery
     * thread. A concurrent map, so that commands on different keys may execute concurrently (P-SMR
     * workers of disjoint groups).
     */
    public final Map<String, String> data = new java.util.concurrent.ConcurrentSkipListMap<>();

    /** The command {@code s}, UTF-8 encoded. */
    public static ByteBuffer cmd(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    /** The UTF-8 text in {@code b}'s remaining bytes (its position is unchanged). */
    public static String text(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return new String(a, StandardCharsets.UTF_8);
    }

    /** {@code GET k} answered as a query (read-index); anything else is ordered. */
    @Override
    public ByteBuffer query(ByteBuffer query) {
        String[] p = text(query).split(" ", 3);
        if (!"GET".equals(p[0]) || p.length < 2) {
            throw new UnsupportedOperationException(p[0] + " is ordered");
        }
        return cmd(String.valueOf(data.get(p[1])));
    }

    @Override
    public ByteBuffer execute(ByteBuffer command) {
        String[] p = text(command).split(" ", 3);
        String out = switch (p[0]) {
            case "SET" -> String.valueOf(data.put(p[1], p[2]));
            case "GET" -> String.valueOf(data.get(p[1]));
            case "APPEND" -> String.valueOf(data.merge(p[1], p[2], String::concat));
            case "FAIL" -> throw new IllegalArgumentException(p.length > 1 ? p[1] : "rejected");
            default -> throw new IllegalArgumentException("unknown command " + p[0]);
        };
        return cmd(out);
    }

    @Override
    public void snapshot(WritableByteChannel out) throws IOException {
        DataOutputStream d = new DataOutputStream(Channels.newOutputStream(out));
        d.writeInt(data.size());
        for (Map.Entry<String, String> e : data.entrySet()) {
            d.writeUTF(e.getKey());
            d.writeUTF(e.getValue());
        }
        d.flush();
    }

    @Override
    public void restore(ReadableByteChannel in) throws IOException {
        DataInputStream d = new DataInputStream(Channels.newInputStream(in));
        data.clear();
        for (int n = d.readInt(); n > 0; n--) {
            data.put(d.readUTF(), d.readUTF());
        }
    }
}
