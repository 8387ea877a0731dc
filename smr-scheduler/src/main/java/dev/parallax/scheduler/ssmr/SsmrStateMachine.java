package dev.parallax.scheduler.ssmr;

import dev.parallax.core.StateMachine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.Objects;
import java.util.function.LongConsumer;

/**
 * The {@link StateMachine} a replica snapshots when it runs a {@link PartitionedStateMachine} under
 * S-SMR: hand it to the replica as its state machine and {@link SsmrExecutor} executes through it.
 *
 * <p><b>Snapshot format:</b> {@code magic "SSMR" (i32) | version (i32, 1 or 2) | finishIndex (i64)},
 * for version 2 then {@code cacheLength (i32) | the ReadCache's bytes} (the caching state of
 * seed 004 §IV-C, {@link CachedExchange} rule 7: written only when it holds something, so a replica
 * without caching writes version 1 as before), then the partitioned machine's own snapshot. {@code finishIndex} is the number of commands this
 * replica's executor finished ({@link RemoteValuesLog} indexes continue from it after a restore;
 * after a durable snapshot the replica truncates the log through it). Nothing else of the
 * executor's state is kept: a snapshot is taken at quiescence, so no command is pending; early
 * messages for later commands, the late-message window and the resend cache are rebuilt or
 * recovered by retransmission (a lagging peer asking for values of a command before the snapshot is
 * answered by another replica of this partition, or catches up by state transfer).
 *
 * <p>{@link #execute} is not used under S-SMR and throws. Threads: as {@link StateMachine}; the
 * finish index is written by the executing thread and read by snapshot (at quiescence).
 */
public final class SsmrStateMachine implements StateMachine {
    /** The first int of every snapshot, "SSMR". */
    public static final int MAGIC = 0x53534D52;
    /** The snapshot header version. */
    public static final int VERSION = 1;
    /** The snapshot header version with caching state. */
    public static final int VERSION_CACHE = 2;
    private static final int HEADER = 16;

    private final PartitionedStateMachine machine;
    private final ReadCache cache = new ReadCache();
    private volatile long finishIndex;
    private volatile LongConsumer snapshotListener = index -> { };

    /** Wraps {@code machine}. */
    public SsmrStateMachine(PartitionedStateMachine machine) {
        this.machine = Objects.requireNonNull(machine, "machine");
    }

    /** The partitioned machine. */
    public PartitionedStateMachine machine() {
        return machine;
    }

    /** How many commands the executor finished since the beginning of the state (snapshot included). */
    public long finishIndex() {
        return finishIndex;
    }

    /**
     * Tells {@code listener} the finish index of every snapshot this machine writes, once its bytes
     * are written (on the thread that writes them; the snapshot may not be durable yet). The
     * replica's executor truncates its remote-values log with it.
     */
    public void onSnapshot(LongConsumer listener) {
        this.snapshotListener = Objects.requireNonNull(listener, "listener");
    }

    /** The caching state the executor's core works on (snapshotted here). */
    ReadCache cache() {
        return cache;
    }

    /** Advances the finish index by one and returns it; executing thread only. */
    long nextFinishIndex() {
        long next = finishIndex + 1;
        finishIndex = next;
        return next;
    }

    /** @throws UnsupportedOperationException always: S-SMR executes through {@link PartitionedStateMachine#execute} */
    @Override
    public ByteBuffer execute(ByteBuffer command) {
        throw new UnsupportedOperationException("an S-SMR state machine executes through SsmrExecutor");
    }

    /** The partition's read-only query ({@link PartitionedStateMachine#query}), outside the order. */
    @Override
    public ByteBuffer query(ByteBuffer query) {
        return machine.query(query);
    }

    @Override
    public void snapshot(WritableByteChannel out) throws IOException {
        long index = finishIndex;
        byte[] cached = null;
        if (!cache.isEmpty()) {
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            try (java.io.DataOutputStream d = new java.io.DataOutputStream(bytes)) {
                cache.write(d);
            }
            cached = bytes.toByteArray();
        }
        ByteBuffer header = ByteBuffer.allocate(HEADER + (cached == null ? 0 : 4 + cached.length)).putInt(MAGIC)
                .putInt(cached == null ? VERSION : VERSION_CACHE).putLong(index);
        if (cached != null) {
            header.putInt(cached.length).put(cached);
        }
        header.flip();
        while (header.hasRemaining()) {
            out.write(header);
        }
        machine.snapshot(out);
        snapshotListener.accept(index);
    }

    @Override
    public void restore(ReadableByteChannel in) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(HEADER);
        while (header.hasRemaining()) {
            if (in.read(header) < 0) {
                throw new IOException("S-SMR snapshot shorter than its " + HEADER + "-byte header");
            }
        }
        header.flip();
        int magic = header.getInt();
        int version = header.getInt();
        long index = header.getLong();
        if (magic != MAGIC || version != VERSION && version != VERSION_CACHE || index < 0) {
            throw new IOException("not an S-SMR snapshot (magic " + Integer.toHexString(magic) + ", version "
                    + version + ", index " + index + ")");
        }
        ReadCache restored = new ReadCache();
        if (version == VERSION_CACHE) {
            ByteBuffer length = ByteBuffer.allocate(4);
            readFully(in, length);
            int n = length.flip().getInt();
            if (n < 0 || n > 1 << 30) {
                throw new IOException("S-SMR snapshot with a cache section of " + n + " bytes");
            }
            ByteBuffer bytes = ByteBuffer.allocate(n);
            readFully(in, bytes);
            restored.read(new java.io.DataInputStream(new java.io.ByteArrayInputStream(bytes.array())));
        }
        machine.restore(in);
        cache.clear();
        cache.held.putAll(restored.held);
        cache.mirror.putAll(restored.mirror);
        finishIndex = index;
    }

    private static void readFully(ReadableByteChannel in, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (in.read(b) < 0) {
                throw new IOException("S-SMR snapshot truncated in its cache section");
            }
        }
    }
}
