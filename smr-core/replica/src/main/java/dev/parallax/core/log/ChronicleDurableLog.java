package dev.parallax.core.log;

import dev.parallax.core.spi.SyncPolicy;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.DurableLogException;
import dev.parallax.core.spi.RecordVisitor;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A {@link DurableLog} on Chronicle Queue: the acceptor log of a replica, in a data directory of its
 * own.
 *
 * <p><b>Layout.</b> One record is one Chronicle excerpt carrying its index and a CRC32C
 * ({@link LogRecordFormat}); one excerpt per record keeps random access by index a single Chronicle
 * index lookup, and group commit comes from forcing once per {@link #sync}, not from packing records.
 * Records live in segment files (Chronicle cycle files, rolled by size through a logical clock, see
 * {@link SegmentFiles}); {@code parallax-log.meta} holds the first index; {@code parallax-log.lock}
 * keeps a second process out. {@code metadata.cq4t} is Chronicle's cache, rebuilt at every open.
 *
 * <p><b>Durability.</b> {@link #sync} follows the {@link SyncPolicy} of the log's
 * {@link ChronicleLogOptions}. Under {@link SyncPolicy#EVERY_BATCH} it forces every segment file
 * written since the previous force ({@code fdatasync}) and the directory when a segment was created;
 * {@link #durableIndex()} then reports exactly what the forces covered. After a failed force (or any
 * failed write) the log accepts no more appends or syncs: the kernel may have dropped the pages it
 * could not write, so no later force could be trusted; reopen the log once the storage is fixed.
 *
 * <p><b>Recovery.</b> {@link #open} validates every record. A torn or corrupt tail (and everything
 * after it) is cut with a WARN log line; damage to records a completed force covered makes
 * {@code open} fail instead (see {@link LogOpener}). Records found at open are forced to the device
 * (except under {@link SyncPolicy#NONE}) and count as durable.
 *
 * <p><b>Clean close.</b> Under {@link SyncPolicy#PERIODIC} and {@link SyncPolicy#NONE} a
 * {@code parallax-log.running} file ({@link RunningMarker}) exists while a process has the log
 * open; only a {@link #close} that forced every record removes it. Finding it at open makes
 * {@link #amnesiaPossible()} true: the previous process stopped uncleanly, and a kernel crash or
 * power loss may have taken records it had synced.
 *
 * <p><b>Lost directory.</b> The first open in a directory places a {@code parallax-log.created} mark
 * ({@link CreationMark}). A directory with neither the mark nor records is new or was wiped; under
 * {@link ChronicleLogOptions.EmptyDirectory#LOST} the log then reports {@link #amnesiaPossible()}
 * (and keeps the running marker, under every sync policy, until {@link #amnesiaResolved()}), so that
 * a replica whose disk was wiped does not vote with empty state.
 *
 * <p><b>Space.</b> {@link #truncateBefore} takes effect at once for reads; the next {@link #sync}
 * persists the new first index atomically and deletes every segment file holding only records below
 * it. An append fails with a disk-full {@link DurableLogException} (without poisoning the log)
 * while less than {@link ChronicleLogOptions#diskReserveBytes()} is free.
 *
 * <p><b>Threads.</b> Single writer, as {@link DurableLog} says: one thread appends, syncs, truncates,
 * reads and closes; handing the log to another thread needs a happens-before edge (a queue, a
 * lock). {@link #append} and {@link #read} make no system call in the common case: they copy to and
 * from memory-mapped pages (a first touch of a page faults it in); every few MiB an append maps a
 * new chunk or starts a new segment file, and once per MiB appended it asks for the free space.
 * {@link #sync}, {@link #open} and {@link #close} block on the file system.
 *
 * <p><b>Parts.</b> The log delegates: {@link RecordAppender} writes records and markers and owns
 * the segment table, {@link RecordReader} reads and checks records, {@link LogSyncer} applies the
 * sync policy and owns the durable index, {@link WriteFailure} remembers the first failed write,
 * {@link LogOpener} and {@link AmnesiaCheck} recover the directory at open. The log itself owns
 * the first index, the amnesia flag and the open/closed state.
 */
public final class ChronicleDurableLog implements DurableLog {

    static {
        ChronicleQuiet.ensure(); // before any Chronicle class initialises
    }
    private static final Logger LOG = LoggerFactory.getLogger(ChronicleDurableLog.class);

    private final Path dir;
    private final ChronicleLogOptions options;
    private final DirectoryLock lock;
    private final SingleChronicleQueue queue;
    private final SegmentSyncer syncer;
    private final WriteFailure failure;
    private final RecordAppender appender;
    private final RecordReader reader;
    private final LogSyncer logSyncer;
    private final StorageIo io;

    private long firstIndex;
    private boolean closed;
    private boolean amnesia;
    /** Under EVERY_BATCH: the amnesia was resolved while records were unsynced; the marker goes at the sync that forces them. */
    private boolean markerAfterSync;

    private ChronicleDurableLog(Path dir, ChronicleLogOptions options, StorageIo io, LogOpener.Opened opened,
                                boolean amnesia) {
        this.dir = dir;
        this.io = io;
        this.amnesia = amnesia;
        this.options = options;
        this.lock = opened.lock();
        this.queue = opened.queue();
        SegmentFiles files = new SegmentFiles(dir);
        this.syncer = new SegmentSyncer(files, io);
        FirstIndexFile firstIndexFile = new FirstIndexFile(dir, io);
        SpaceGuard space = new SpaceGuard(dir, options.diskReserveBytes(), io);
        this.failure = new WriteFailure(dir);
        this.firstIndex = opened.firstIndex();
        this.appender = new RecordAppender(dir, options, queue, opened.clock(), opened.segments(), files, syncer,
                space, failure, opened.nextIndex());
        this.reader = new RecordReader(queue, opened.segments(), files);
        this.logSyncer = new LogSyncer(dir, options, appender, syncer, firstIndexFile, failure,
                opened.firstIndex(), opened.nextIndex(), opened.durableHint());
    }

    /**
     * Opens (creating if needed) the log in {@code dir} with {@link ChronicleLogOptions#defaults()}.
     *
     * @see #open(Path, ChronicleLogOptions)
     */
    public static ChronicleDurableLog open(Path dir) {
        return open(dir, ChronicleLogOptions.defaults());
    }

    /**
     * Opens (creating if needed) the log in {@code dir}: takes the directory's lock, validates every
     * record, cuts a torn tail (logging a WARN line) and forces what it found to the device (except
     * under {@link SyncPolicy#NONE}). Blocks on file I/O for a time proportional to the log's size.
     * May be called from any thread; the thread that uses the log afterwards must see the returned
     * object safely published.
     *
     * @throws DurableLogException if the directory is locked by another process or open log, on an
     *                             I/O error, or if records the log had forced to the device are
     *                             damaged or missing (the log refuses to open rather than lose them)
     */
    public static ChronicleDurableLog open(Path dir, ChronicleLogOptions options) {
        return open(dir, options, StorageIo.SYSTEM);
    }

    /** {@link #open(Path, ChronicleLogOptions)} over a substitute storage stack (tests inject faults). */
    static ChronicleDurableLog open(Path dir, ChronicleLogOptions options, StorageIo io) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(options, "options");
        LogOpener.Opened opened = LogOpener.open(dir, options, io);
        try {
            boolean amnesia = AmnesiaCheck.atOpen(dir, options, io, opened.firstIndex(), opened.nextIndex());
            return new ChronicleDurableLog(dir, options, io, opened, amnesia);
        } catch (IOException | RuntimeException e) {
            LogOpener.closeQueue(opened.queue());
            opened.lock().release();
            throw new DurableLogException("cannot open the log in " + dir, e);
        }
    }

    /** The log's directory. Thread-safe. */
    public Path directory() {
        return dir;
    }

    /** The options the log was opened with. Thread-safe. */
    public ChronicleLogOptions options() {
        return options;
    }

    /**
     * Writes the record into the current segment's mapping (the page cache); no system call in the
     * common case, and no allocation.
     *
     * @throws IllegalArgumentException if the record is larger than
     *                                  {@link ChronicleLogOptions#maxRecordBytes()}
     * @throws DurableLogException      if the disk is (nearly) full (the log stays usable), if the
     *                                  write failed (the log then refuses further writes) or if an
     *                                  earlier write or sync failed
     * @throws IllegalStateException    if closed
     */
    @Override
    public long append(ByteBuffer record) {
        checkWritable();
        return appender.append(record);
    }

    /**
     * Makes the records appended so far durable as the sync policy defines it, persists a pending
     * truncation and deletes the segment files it frees. Under {@link SyncPolicy#EVERY_BATCH} (and
     * {@link SyncPolicy#PERIODIC} once its interval has passed) blocks for one {@code fdatasync} per
     * segment written since the last force, usually one.
     *
     * @throws DurableLogException   if the device failed (the log then refuses further writes;
     *                               {@link #durableIndex()} keeps its value from the last successful
     *                               sync) or if an earlier write or sync failed
     * @throws IllegalStateException if closed
     */
    @Override
    public void sync() {
        checkWritable();
        logSyncer.sync(appender.nextIndex(), firstIndex);
        if (markerAfterSync && logSyncer.durableIndex() == appender.nextIndex() && !failure.failed()) {
            markerAfterSync = false;
            removeRunningMarker();
        }
    }

    /** {@inheritDoc} Single writer thread; never blocks. */
    @Override
    public long firstIndex() {
        checkOpen();
        return firstIndex;
    }

    /** {@inheritDoc} Single writer thread; never blocks. */
    @Override
    public long nextIndex() {
        checkOpen();
        return appender.nextIndex();
    }

    /**
     * {@inheritDoc} Under {@link SyncPolicy#NONE}, "durable" means "survives a process crash" (see
     * {@link SyncPolicy#NONE}). Single writer thread; never blocks.
     */
    @Override
    public long durableIndex() {
        checkOpen();
        return logSyncer.durableIndex();
    }

    /**
     * {@inheritDoc} Checks each record's CRC and index before handing it over. The buffer passed to
     * the visitor is read-only, starts at the record's first byte (position 0) and is reused for the
     * next record. Usable after a failed write or sync. Reads memory-mapped pages; does not allocate
     * unless a record is larger than any read before.
     *
     * @throws DurableLogException   if a record cannot be read or is damaged
     * @throws IllegalStateException if closed
     */
    @Override
    public int read(long fromIndex, int maxRecords, RecordVisitor visitor) {
        checkOpen();
        if (fromIndex < 0) {
            throw new IllegalArgumentException("negative index " + fromIndex);
        }
        if (fromIndex < firstIndex) {
            throw new IllegalArgumentException("index " + fromIndex + " was trimmed; first index is " + firstIndex);
        }
        long end = Math.min(appender.nextIndex(), fromIndex + Math.max(0, maxRecords));
        if (fromIndex >= end) {
            return 0;
        }
        return reader.read(fromIndex, end, visitor);
    }

    /**
     * {@inheritDoc} Takes effect for reads at once; durable, and the freed segment files deleted,
     * at the next {@link #sync}. No I/O; allowed after a failed write or sync.
     *
     * @throws IllegalStateException if closed
     */
    @Override
    public void truncateBefore(long index) {
        checkOpen();
        long nextIndex = appender.nextIndex();
        if (index > nextIndex) {
            throw new IllegalArgumentException("cannot truncate before " + index + ": next index is " + nextIndex);
        }
        if (index > firstIndex) {
            firstIndex = index;
        }
    }

    /**
     * {@inheritDoc} Single writer thread; never blocks. True when {@code parallax-log.running} was
     * present at open (see {@link RunningMarker}) and {@link #amnesiaResolved} was not called since.
     */
    @Override
    public boolean amnesiaPossible() {
        checkOpen();
        return amnesia;
    }

    /**
     * {@inheritDoc} Under {@link SyncPolicy#EVERY_BATCH} it removes the {@code parallax-log.running}
     * marker (blocking on a directory force) once every record is durable: at once, or else at the
     * next {@link #sync} that forces them, so that a crash does not make the next open report
     * amnesia again; under the other policies no I/O: the marker goes at the next clean {@link #close}.
     */
    @Override
    public void amnesiaResolved() {
        checkOpen();
        amnesia = false;
        if (options.syncPolicy() != SyncPolicy.EVERY_BATCH || failure.failed()) {
            return;
        }
        if (logSyncer.durableIndex() == appender.nextIndex()) {
            removeRunningMarker();
        } else {
            markerAfterSync = true; // the next sync that forces every record removes it
        }
    }

    private void removeRunningMarker() {
        try {
            RunningMarker.remove(dir, io);
        } catch (IOException | RuntimeException e) {
            throw new DurableLogException("cannot record the end of the amnesia recovery in " + dir, e);
        }
    }

    /**
     * Releases the Chronicle queue, its mapped files and the directory lock. Under
     * {@link SyncPolicy#PERIODIC} and {@link SyncPolicy#NONE} (and whenever a
     * {@code parallax-log.running} marker is to be removed) it first forces every segment written
     * since the last force and then removes the marker, so that the next open reports no amnesia;
     * it skips both after a failed write or sync, or while {@link #amnesiaPossible()} holds. It does
     * not move {@link #durableIndex()}. Blocks on those forces and until the mappings are
     * released. Idempotent; never throws (a failed final force is logged and leaves the marker).
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            closeCleanly();
        } finally {
            release();
        }
    }

    /** The final force and marker removal of a clean close; a failure leaves the marker in place. */
    private void closeCleanly() {
        if (failure.failed() || amnesia || !RunningMarker.present(dir)) {
            return;
        }
        try {
            syncer.force();
            RunningMarker.remove(dir, io);
        } catch (IOException | RuntimeException | InternalError e) {
            LOG.warn("Cannot force the log in {} at close; the next open will report possible amnesia", dir, e);
        }
    }

    private void release() {
        try {
            releaseChronicle();
            syncer.close();
        } catch (IOException e) {
            LOG.warn("Error while closing the log in {}", dir, e);
        } finally {
            lock.release();
        }
    }

    /**
     * Closes the log as a crashing process would: no final force, the running marker stays. For
     * tests only.
     */
    void crashForTest() {
        if (!closed) {
            closed = true;
            release();
        }
    }

    /**
     * Closes the Chronicle queue under the log, as if its mapped storage had vanished, without
     * marking the log closed: later appends fail like writes to a broken disk. For tests only.
     */
    void loseStorageForTest() {
        releaseChronicle();
    }

    /** Closes the tailer, the appender and the queue, in that order; each close is idempotent. */
    private void releaseChronicle() {
        closeQuietly("tailer", reader::close);
        closeQuietly("appender", appender::close);
        closeQuietly("queue", () -> LogOpener.closeQueue(queue));
    }

    private void closeQuietly(String what, Runnable close) {
        try {
            close.run();
        } catch (RuntimeException | InternalError e) {
            // After a storage failure the mapping itself may fault (InternalError); the files are released anyway.
            LOG.warn("Error while closing the Chronicle {} of the log in {}", what, dir, e);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("log is closed");
        }
    }

    private void checkWritable() {
        checkOpen();
        failure.check();
    }

    @Override
    public String toString() {
        return "ChronicleDurableLog[" + dir + ", " + options.syncPolicy() + ", [" + firstIndex + ", " + appender.nextIndex()
                + "), durable " + logSyncer.durableIndex() + "]";
    }
}
