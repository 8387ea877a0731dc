package dev.parallax.examples.linkedlist;

import dev.parallax.core.StateMachine;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * The benchmark application of seed 001 (§5.2): a state partitioned into {@code n} shards, each a
 * linked list of ints. A local read checks whether a value is in one shard, a local write adds it to
 * one shard unless it is there; a global read checks every shard, a global write adds the value to
 * every shard that lacks it. Commands are built by {@link ListCommands}; run it in parallel with
 * {@link ListClassifier} and its class map.
 *
 * <p>Threads: safe under any executor whose class map follows the sharded conflict relation
 * (reads of a shard may run together; a write of a shard runs alone with respect to that shard's
 * reads and writes and to global operations). {@link #snapshot} and {@link #restore} only while
 * no command runs.
 */
public final class ShardedLinkedList implements StateMachine {
    private static final ByteBuffer TRUE = ByteBuffer.wrap(new byte[] {1}).asReadOnlyBuffer();
    private static final ByteBuffer FALSE = ByteBuffer.wrap(new byte[] {0}).asReadOnlyBuffer();

    private final IntLinkedList[] shards;

    /**
     * @param shards          number of shards, {@code >= 1}
     * @param initialElements each shard starts with the values {@code 0 .. initialElements-1}
     */
    public ShardedLinkedList(int shards, int initialElements) {
        if (shards < 1 || initialElements < 0) {
            throw new IllegalArgumentException("shards must be >= 1 and initialElements >= 0");
        }
        this.shards = new IntLinkedList[shards];
        for (int s = 0; s < shards; s++) {
            this.shards[s] = new IntLinkedList();
            for (int v = 0; v < initialElements; v++) {
                this.shards[s].append(v);
            }
        }
    }

    /** The number of shards. */
    public int shardCount() {
        return shards.length;
    }

    /** The number of elements in shard {@code s}; only while no command runs. */
    public int size(int s) {
        return shards[s].size();
    }

    /** @throws IllegalArgumentException for an unknown operation or shard */
    @Override
    public ByteBuffer execute(ByteBuffer command) {
        byte op = ListCommands.op(command);
        int value = ListCommands.value(command);
        boolean r;
        switch (op) {
            case ListCommands.LOCAL_READ -> r = shard(ListCommands.shard(command)).contains(value);
            case ListCommands.LOCAL_WRITE -> r = shard(ListCommands.shard(command)).addIfAbsent(value);
            case ListCommands.GLOBAL_READ -> {
                r = true;
                for (IntLinkedList l : shards) {
                    r &= l.contains(value);
                }
            }
            case ListCommands.GLOBAL_WRITE -> {
                r = false;
                for (IntLinkedList l : shards) {
                    r |= l.addIfAbsent(value);
                }
            }
            default -> throw new IllegalArgumentException("unknown operation " + op);
        }
        return (r ? TRUE : FALSE).duplicate();
    }

    private IntLinkedList shard(int s) {
        if (s < 0 || s >= shards.length) {
            throw new IllegalArgumentException("no shard " + s);
        }
        return shards[s];
    }

    @Override
    public void snapshot(WritableByteChannel out) throws IOException {
        DataOutputStream d = new DataOutputStream(new java.io.BufferedOutputStream(Channels.newOutputStream(out)));
        d.writeInt(shards.length);
        for (IntLinkedList l : shards) {
            int[] values = l.toArray();
            d.writeInt(values.length);
            for (int v : values) {
                d.writeInt(v);
            }
        }
        d.flush();
    }

    /** @throws IOException if the snapshot is malformed or has another number of shards */
    @Override
    public void restore(ReadableByteChannel in) throws IOException {
        DataInputStream d = new DataInputStream(new java.io.BufferedInputStream(Channels.newInputStream(in)));
        int n = d.readInt();
        if (n != shards.length) {
            throw new IOException("snapshot has " + n + " shards, this list " + shards.length);
        }
        for (IntLinkedList l : shards) {
            l.clear();
            int size = d.readInt();
            if (size < 0) {
                throw new IOException("negative shard size " + size);
            }
            for (int i = 0; i < size; i++) {
                l.append(d.readInt());
            }
        }
    }
}
