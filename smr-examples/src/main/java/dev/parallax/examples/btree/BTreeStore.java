package dev.parallax.examples.btree;

import dev.parallax.core.StateMachine;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.List;
import java.util.Map;

/**
 * An ordered key-value store over a {@link BPlusTree}, as a replicated {@link StateMachine}; the
 * command format is {@link BTreeCommands}. With {@link BTreeClassifier} reads run in parallel and
 * writes alone.
 *
 * <p>Threads: reads may run concurrently with each other, writes only alone (what the read/write
 * class map guarantees). {@link #snapshot} and {@link #restore} only while no command runs.
 */
public final class BTreeStore implements StateMachine {
    private static final ByteBuffer TRUE = ByteBuffer.wrap(new byte[] {1}).asReadOnlyBuffer();
    private static final ByteBuffer FALSE = ByteBuffer.wrap(new byte[] {0}).asReadOnlyBuffer();

    private final BPlusTree tree;

    /** @param order the B+-tree's order (maximum children per inner node), {@code >= 4} */
    public BTreeStore(int order) {
        this.tree = new BPlusTree(order);
    }

    /** The tree, for inspection while no command runs. */
    public BPlusTree tree() {
        return tree;
    }

    /** @throws IllegalArgumentException for a malformed command; the store is then unchanged */
    @Override
    public ByteBuffer execute(ByteBuffer command) {
        ByteBuffer c = command.duplicate();
        if (c.remaining() < 9) {
            throw new IllegalArgumentException("command too short: " + c.remaining() + " bytes");
        }
        byte op = c.get();
        long key = c.getLong();
        return switch (op) {
            case BTreeCommands.GET -> {
                byte[] v = tree.get(key);
                yield v == null ? FALSE.duplicate() : ByteBuffer.allocate(1 + v.length).put((byte) 1).put(v).flip();
            }
            case BTreeCommands.INSERT -> bool(tree.insert(key, rest(c)));
            case BTreeCommands.UPDATE -> bool(tree.update(key, rest(c)));
            case BTreeCommands.DELETE -> bool(tree.delete(key));
            case BTreeCommands.RANGE -> {
                if (c.remaining() != 12) {
                    throw new IllegalArgumentException("RANGE needs to and limit");
                }
                long to = c.getLong();
                int limit = c.getInt();
                if (limit < 0) {
                    throw new IllegalArgumentException("negative limit " + limit);
                }
                yield encode(tree.range(key, to, limit));
            }
            default -> throw new IllegalArgumentException("unknown operation " + op);
        };
    }

    private static byte[] rest(ByteBuffer c) {
        byte[] v = new byte[c.remaining()];
        c.get(v);
        return v;
    }

    private static ByteBuffer bool(boolean b) {
        return (b ? TRUE : FALSE).duplicate();
    }

    private static ByteBuffer encode(List<Map.Entry<Long, byte[]>> entries) {
        int bytes = 4;
        for (Map.Entry<Long, byte[]> e : entries) {
            bytes += 12 + e.getValue().length;
        }
        ByteBuffer out = ByteBuffer.allocate(bytes).putInt(entries.size());
        for (Map.Entry<Long, byte[]> e : entries) {
            out.putLong(e.getKey()).putInt(e.getValue().length).put(e.getValue());
        }
        return out.flip();
    }

    /** Writes the entry count, then each entry in key order. */
    @Override
    public void snapshot(WritableByteChannel out) throws IOException {
        DataOutputStream d = new DataOutputStream(new BufferedOutputStream(Channels.newOutputStream(out)));
        d.writeInt(tree.size());
        try {
            tree.forEach((value, key) -> {
                try {
                    d.writeLong(key);
                    d.writeInt(value.length);
                    d.write(value);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        d.flush();
    }

    /** @throws IOException if the data is malformed; the store is then empty */
    @Override
    public void restore(ReadableByteChannel in) throws IOException {
        DataInputStream d = new DataInputStream(new BufferedInputStream(Channels.newInputStream(in)));
        tree.clear();
        int n = d.readInt();
        if (n < 0) {
            throw new IOException("negative entry count " + n);
        }
        for (int i = 0; i < n; i++) {
            long key = d.readLong();
            int len = d.readInt();
            if (len < 0) {
                tree.clear();
                throw new IOException("negative value length " + len);
            }
            byte[] v = new byte[len];
            d.readFully(v);
            if (!tree.insert(key, v)) {
                tree.clear();
                throw new IOException("duplicate key " + key + " in snapshot");
            }
        }
    }
}
