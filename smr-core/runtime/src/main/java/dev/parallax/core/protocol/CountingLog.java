package dev.parallax.core.protocol;

import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.RecordVisitor;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link DurableLog} that counts appends and syncs on their way to the real one (the Protocol
 * stage's {@code parallax.protocol.persisted} and {@code parallax.protocol.syncs}).
 *
 * <p>Threads: as the log it wraps; the counters are thread-safe.
 */
final class CountingLog implements DurableLog {
    private final DurableLog inner;
    private final LongAdder appends;
    private final LongAdder syncs;

    CountingLog(DurableLog inner, LongAdder appends, LongAdder syncs) {
        this.inner = inner;
        this.appends = appends;
        this.syncs = syncs;
    }

    @Override
    public long append(ByteBuffer record) {
        appends.increment();
        return inner.append(record);
    }

    @Override
    public void sync() {
        syncs.increment();
        inner.sync();
    }

    @Override
    public long firstIndex() {
        return inner.firstIndex();
    }

    @Override
    public long nextIndex() {
        return inner.nextIndex();
    }

    @Override
    public long durableIndex() {
        return inner.durableIndex();
    }

    @Override
    public int read(long fromIndex, int maxRecords, RecordVisitor visitor) {
        return inner.read(fromIndex, maxRecords, visitor);
    }

    @Override
    public void truncateBefore(long index) {
        inner.truncateBefore(index);
    }

    @Override
    public void close() {
        inner.close();
    }
}
