package dev.parallax.bench.load;

import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Key-value commands of one connection encoded once, back to back in one array, so the load
 * generator issues a command by pointing a buffer at it instead of encoding it: SETs of a value
 * sized so the encoded command has the load's size, and GETs, in the load's read share (exactly
 * {@code round(size * readPercent / 100)} of them, at random places), on random keys
 * {@code "<connection>:<n>"}.
 *
 * <p>Immutable after construction; {@link #select} only touches the buffer it is given, so one
 * pool serves many threads, each with its own view from {@link #view}.
 */
public final class CommandPool {
    /** Commands per connection, cycled; a power of two. */
    public static final int DEFAULT_SIZE = 1024;

    private final byte[] bytes;
    private final int[] offsets;
    /** Which commands are reads (GET): sent as queries ({@code CommandInvoker.query}). */
    private final boolean[] reads;

    private CommandPool(byte[] bytes, int[] offsets, boolean[] reads) {
        this.reads = reads;
        this.bytes = bytes;
        this.offsets = offsets;
    }

    /** {@code size} commands of connection {@code connection} for {@code spec}, reproducible from {@code seed}. */
    public static CommandPool generate(int connection, LoadSpec spec, int size, long seed) {
        if (size < 1) {
            throw new IllegalArgumentException("pool size must be >= 1, not " + size);
        }
        SplittableRandom rnd = new SplittableRandom(seed);
        boolean[] read = new boolean[size];
        int reads = (int) Math.round(size * spec.readPercent() / 100.0);
        for (int i = 0; i < reads; i++) {
            read[i] = true;
        }
        for (int i = size - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            boolean t = read[i];
            read[i] = read[j];
            read[j] = t;
        }
        ByteBuffer[] encoded = new ByteBuffer[size];
        int total = 0;
        for (int i = 0; i < size; i++) {
            byte[] key = (connection + ":" + rnd.nextInt(spec.keys())).getBytes(StandardCharsets.UTF_8);
            if (read[i]) {
                encoded[i] = KvCommand.of(KvOp.GET, key).encode();
            } else {
                int overhead = KvCommand.of(KvOp.SET, key, new byte[0]).encode().remaining();
                byte[] value = new byte[Math.max(1, spec.commandBytes() - overhead)];
                rnd.nextBytes(value);
                encoded[i] = KvCommand.of(KvOp.SET, key, value).encode();
            }
            total += encoded[i].remaining();
        }
        byte[] bytes = new byte[total];
        int[] offsets = new int[size + 1];
        for (int i = 0; i < size; i++) {
            int len = encoded[i].remaining();
            encoded[i].get(bytes, offsets[i], len);
            offsets[i + 1] = offsets[i] + len;
        }
        return new CommandPool(bytes, offsets, read);
    }

    /** Whether command {@code index} is a read (GET): the load sends it as a query. */
    public boolean isRead(int index) {
        return reads[index];
    }

    /** Number of commands. */
    public int size() {
        return offsets.length - 1;
    }

    /** A fresh buffer over this pool's bytes for {@link #select}; one per sequential user. */
    public ByteBuffer view() {
        return ByteBuffer.wrap(bytes);
    }

    /** Points {@code view} (from {@link #view}) at command {@code index}; returns it. Allocates nothing. */
    public ByteBuffer select(int index, ByteBuffer view) {
        view.limit(bytes.length).position(offsets[index]);
        view.limit(offsets[index + 1]);
        return view;
    }
}
