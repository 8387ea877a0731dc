package dev.parallax.core.log.memory;

import dev.parallax.core.spi.SyncPolicy;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.DurableLogException;
import dev.parallax.core.spi.RecordVisitor;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A {@link DurableLog} in memory. Its records live in a {@link Storage} that outlives the log
 * object, so a test or the simulator can "crash" a process (close without sync, then
 * {@link Storage#crash}) and reopen the log over what a disk would still hold: every synced record
 * and a chosen number of the unsynced ones after them.
 *
 * <p>By default a sync reaches the "device": a crash keeps every synced record, as the
 * {@link DurableLog} contract says. {@link Storage#syncReachesDevice(boolean) syncReachesDevice(false)}
 * models a page-cache-only policy ({@code SyncPolicy.NONE}) under power loss instead: a crash keeps
 * only what the last clean {@link #close} forced plus a chosen number of later records, and the next
 * open reports {@link #amnesiaPossible()} like the Chronicle log ({@code dev.parallax.core.log.ChronicleDurableLog}) does.
 *
 * <p>Also useful for replicas that run without a data directory (no crash recovery).
 *
 * <p>Single writer, not thread-safe, as the {@link DurableLog} contract says.
 */
public final class InMemoryDurableLog implements DurableLog {
    private final Storage storage;
    private boolean closed;
    private boolean amnesia;

    private InMemoryDurableLog(Storage storage) {
        this.storage = storage;
        this.amnesia = storage.running;
        if (!storage.syncReachesDevice) {
            storage.running = true;
        }
    }

    /**
     * Opens a log over {@code storage}.
     *
     * @throws IllegalStateException if another log over the same storage is still open
     */
    public static InMemoryDurableLog open(Storage storage) {
        Objects.requireNonNull(storage, "storage");
        if (storage.open != null) {
            throw new IllegalStateException("storage already has an open log");
        }
        InMemoryDurableLog log = new InMemoryDurableLog(storage);
        storage.open = log;
        return log;
    }

    /** A log over fresh, empty storage. */
    public static InMemoryDurableLog create() {
        return open(new Storage());
    }

    /** The storage under this log. */
    public Storage storage() {
        return storage;
    }

    @Override
    public long append(ByteBuffer record) {
        checkOpen();
        if (storage.failWrites) {
            throw new DurableLogException("simulated write failure (disk full)");
        }
        byte[] copy = new byte[record.remaining()];
        record.duplicate().get(copy);
        storage.records.add(copy);
        return storage.next() - 1;
    }

    @Override
    public void sync() {
        checkOpen();
        if (storage.failWrites) {
            throw new DurableLogException("simulated sync failure");
        }
        storage.syncedCount = storage.records.size();
        if (storage.first > storage.durableFirst) {
            int drop = (int) (storage.first - storage.durableFirst);
            storage.records.subList(0, drop).clear();
            storage.syncedCount -= drop;
            storage.forcedCount = Math.max(0, storage.forcedCount - drop);
            storage.durableFirst = storage.first;
        }
    }

    @Override
    public long firstIndex() {
        checkOpen();
        return storage.first;
    }

    @Override
    public long nextIndex() {
        checkOpen();
        return storage.next();
    }

    @Override
    public long durableIndex() {
        checkOpen();
        return storage.durableFirst + storage.syncedCount;
    }

    @Override
    public int read(long fromIndex, int maxRecords, RecordVisitor visitor) {
        checkOpen();
        if (fromIndex < storage.first) {
            throw new IllegalArgumentException("index " + fromIndex + " was trimmed; first index is " + storage.first);
        }
        long end = Math.min(storage.next(), fromIndex + Math.max(0, maxRecords));
        int n = 0;
        for (long i = fromIndex; i < end; i++, n++) {
            byte[] r = storage.records.get((int) (i - storage.durableFirst));
            visitor.visit(i, ByteBuffer.wrap(r).asReadOnlyBuffer());
        }
        return n;
    }

    @Override
    public void truncateBefore(long index) {
        checkOpen();
        if (index > storage.next()) {
            throw new IllegalArgumentException("cannot truncate before " + index + ": next index is " + storage.next());
        }
        storage.first = Math.max(storage.first, index);
    }

    @Override
    public boolean amnesiaPossible() {
        checkOpen();
        return amnesia;
    }

    @Override
    public void amnesiaResolved() {
        checkOpen();
        amnesia = false;
    }

    /**
     * A clean close. Unless amnesia is still unresolved or writes are failing, records a clean
     * stop; when syncs do not reach the device it first forces every record, as
     * the Chronicle log's {@code close()} does (they all survive a later crash). Otherwise, as
     * before, it does not sync.
     */
    @Override
    public void close() {
        if (!closed) {
            if (!amnesia && !storage.failWrites) {
                if (!storage.syncReachesDevice) {
                    storage.syncedCount = storage.records.size();
                    storage.forcedCount = storage.records.size();
                }
                storage.running = false;
            }
            abandon();
        }
    }

    /** Closes without the final force: what a crashing process does. */
    private void abandon() {
        if (!closed) {
            closed = true;
            storage.open = null;
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("log is closed");
        }
    }

    /**
     * What a disk would hold for one log. Survives the {@link InMemoryDurableLog} objects opened over
     * it. Not thread-safe; owned by the thread that owns the log (or the simulator).
     */
    public static final class Storage {
        /** Records from index {@code durableFirst} on; the first {@code syncedCount} are durable. */
        private final List<byte[]> records = new ArrayList<>();
        private long durableFirst;
        private long first;
        private int syncedCount;
        /** Records from {@code durableFirst} on that a clean close forced (matters when syncs do not force). */
        private int forcedCount;
        private boolean syncReachesDevice = true;
        /** An open log whose syncs do not force left this set: the "running" marker. */
        private boolean running;
        private boolean failWrites;
        private InMemoryDurableLog open;

        private long next() {
            return durableFirst + records.size();
        }

        /**
         * Simulates a crash: closes the open log (if any) without syncing, keeps every record that
         * reached the device (every synced one; only the ones a clean close forced when syncs do
         * not reach the device) and the first {@code keepUnsynced} of the later ones (a disk may
         * have written some of them), and undoes a truncation that was not synced.
         */
        public void crash(int keepUnsynced) {
            if (open != null) {
                open.abandon();
            }
            int onDevice = syncReachesDevice ? syncedCount : Math.min(forcedCount, syncedCount);
            int keep = Math.min(records.size(), onDevice + Math.max(0, keepUnsynced));
            records.subList(keep, records.size()).clear();
            syncedCount = keep;
            forcedCount = keep;
            first = durableFirst;
        }

        /** Number of records a {@link #crash} may lose: not yet synced (or not yet forced, see {@link #syncReachesDevice}). */
        public int unsyncedCount() {
            return records.size() - (syncReachesDevice ? syncedCount : Math.min(forcedCount, syncedCount));
        }

        /**
         * Whether a sync makes records survive a crash (default {@code true}). With {@code false}
         * the storage models {@code SyncPolicy.NONE} under power loss: only a clean close forces,
         * and a log opened after a crash reports {@link InMemoryDurableLog#amnesiaPossible()}.
         * Takes effect for logs opened from now on (and for crashes).
         */
        public void syncReachesDevice(boolean reaches) {
            this.syncReachesDevice = reaches;
            if (!reaches && open != null) {
                running = true;
            }
        }

        /** Makes every later append and sync fail with {@link DurableLogException} (a full or broken disk). */
        public void failWrites(boolean fail) {
            this.failWrites = fail;
        }
    }
}
