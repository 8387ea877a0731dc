package dev.parallax.core.log;

import dev.parallax.core.spi.SyncPolicy;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.DurableLogException;
import dev.parallax.core.spi.RecordVisitor;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;
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
 */
public final class ChronicleDurableLog implements DurableLog {

    static {
        ChronicleQuiet.ensure(); // before any Chronicle class initialises
    }
    private static final Logger LOG = LoggerFactory.getLogger(ChronicleDurableLog.class);
    /** Bytes an append may add to a segment beyond its payload: our header, Chronicle's, padding. */
    private static final int APPEND_OVERHEAD = LogRecordFormat.RECORD_HEADER_BYTES + 8;

    private final Path dir;
    private final ChronicleLogOptions options;
    private final DirectoryLock lock;
    private final SingleChronicleQueue queue;
    private final RollCycle rollCycle;
    private final ExcerptAppender appender;
    private final ExcerptTailer tailer;
    private final LogicalClock clock;
    private final SegmentTable segments;
    private final SegmentFiles files;
    private final SegmentSyncer syncer;
    private final FirstIndexFile firstIndexFile;
    private final SpaceGuard space;
    private final LogRecordFormat format = new LogRecordFormat();
    private final byte[] readHeader = new byte[LogRecordFormat.RECORD_HEADER_BYTES];
    private final long syncIntervalNanos;

    private long firstIndex;
    private long storedFirstIndex;
    private long nextIndex;
    private long durableIndex;
    private long lastMarker;
    private boolean segmentHasRecords;
    private long segmentBytes;
    private boolean forcedSinceOpen;
    private long lastForceNanos;
    private byte[] readBuffer = new byte[4096];
    private ByteBuffer readView = ByteBuffer.wrap(readBuffer).asReadOnlyBuffer();
    private DurableLogException failure;
    private boolean closed;
    private final StorageIo io;
    private boolean amnesia;

    private ChronicleDurableLog(Path dir, ChronicleLogOptions options, StorageIo io, LogOpener.Opened opened,
                                boolean amnesia) {
        this.dir = dir;
        this.io = io;
        this.amnesia = amnesia;
        this.options = options;
        this.lock = opened.lock();
        this.queue = opened.queue();
        this.rollCycle = queue.rollCycle();
        this.clock = opened.clock();
        this.segments = opened.segments();
        this.files = new SegmentFiles(dir);
        this.syncer = new SegmentSyncer(files, io);
        this.firstIndexFile = new FirstIndexFile(dir, io);
        this.space = new SpaceGuard(dir, options.diskReserveBytes(), io);
        this.syncIntervalNanos = options.syncInterval().toNanos();
        this.firstIndex = opened.firstIndex();
        this.storedFirstIndex = opened.firstIndex();
        this.nextIndex = opened.nextIndex();
        this.durableIndex = opened.nextIndex();
        this.lastMarker = opened.durableHint();
        this.appender = queue.createAppender();
        this.tailer = queue.createTailer();
        appender.singleThreadedCheckDisabled(true);
        tailer.singleThreadedCheckDisabled(true);
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
            boolean amnesia = RunningMarker.present(dir);
            if (amnesia) {
                LOG.warn("The log in {} was not closed cleanly by a process that did not force every record "
                        + "(sync policy PERIODIC or NONE), or was never rebuilt after its directory was lost: "
                        + "records it reported durable may be missing", dir);
            }
            boolean lost = !CreationMark.present(dir) && opened.nextIndex() == 0 && opened.firstIndex() == 0
                    && options.emptyDirectory() == ChronicleLogOptions.EmptyDirectory.LOST;
            if (lost) {
                LOG.warn("The log directory {} is empty and was never used by a log: treated as a lost (wiped or "
                        + "replaced) directory; its replica must rebuild its state from peers before voting. "
                        + "On the first start of a new cluster, bootstrap instead", dir);
                amnesia = true;
            }
            if (options.syncPolicy() != SyncPolicy.EVERY_BATCH || amnesia) {
                RunningMarker.place(dir, io);
            }
            // After the running marker: a crash in between must not leave a marked, empty directory
            // that no longer reports its loss.
            CreationMark.place(dir, io);
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
        int length = record.remaining();
        if (length > options.maxRecordBytes()) {
            throw new IllegalArgumentException("record of " + length + " bytes exceeds maxRecordBytes "
                    + options.maxRecordBytes());
        }
        space.reserve(length + (long) APPEND_OVERHEAD);
        if (segmentHasRecords && segmentBytes >= options.segmentBytes()) {
            clock.advance();
            segmentHasRecords = false;
        }
        long index = nextIndex;
        byte[] header = format.recordHeader(index, record);
        try (DocumentContext dc = appender.writingDocument()) {
            boolean written = false;
            try {
                Bytes<?> bytes = dc.wire().bytes();
                bytes.write(header, 0, LogRecordFormat.RECORD_HEADER_BYTES);
                writePayload(bytes, record, length);
                segmentBytes = bytes.writePosition();
                written = true;
            } finally {
                if (!written) {
                    dc.rollbackOnClose();
                }
            }
        } catch (RuntimeException | InternalError e) {
            // InternalError is how the JVM reports SIGBUS on a mapped page (file system full or file truncated).
            throw fail("cannot append record " + index + " to " + dir, e);
        }
        int cycle = clock.cycle();
        if (!segmentHasRecords) {
            segments.add(cycle, index);
            segmentHasRecords = true;
            syncer.noteNewFile();
        }
        syncer.noteWrite(cycle);
        nextIndex = index + 1;
        return index;
    }

    /**
     * Copies the payload without moving the caller's buffer. Chronicle's
     * {@code write(long, ByteBuffer, int, int)} is not used for heap buffers: it indexes
     * {@code array()} without {@code arrayOffset()} (wrong bytes for a slice) and fails on
     * read-only buffers.
     */
    private void writePayload(Bytes<?> bytes, ByteBuffer record, int length) {
        int position = record.position();
        if (record.hasArray()) {
            bytes.write(record.array(), record.arrayOffset() + position, length);
        } else if (record.isDirect()) {
            long at = bytes.writePosition();
            bytes.writeSkip(length);
            bytes.write(at, record, position, length);
        } else {
            byte[] scratch = format.scratch();
            for (int done = 0; done < length; ) {
                int n = Math.min(scratch.length, length - done);
                record.get(position + done, scratch, 0, n);
                bytes.write(scratch, 0, n);
                done += n;
            }
        }
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
        long target = nextIndex;
        switch (options.syncPolicy()) {
            case EVERY_BATCH -> {
                if (target > durableIndex) {
                    force(target);
                }
            }
            case PERIODIC -> {
                if (target > durableIndex && (!forcedSinceOpen || options.clock().nanoTime() - lastForceNanos >= syncIntervalNanos)) {
                    force(target);
                }
            }
            case NONE -> durableIndex = target;
        }
        if (firstIndex > storedFirstIndex) {
            try {
                firstIndexFile.write(firstIndex);
            } catch (IOException | RuntimeException e) {
                throw fail("cannot persist first index " + firstIndex + " in " + dir, e);
            }
            storedFirstIndex = firstIndex;
        }
        deleteTrimmedSegments();
    }

    private void force(long target) {
        try {
            if (durableIndex > lastMarker) {
                // States what the previous force achieved; this force makes the statement durable.
                try (DocumentContext dc = appender.writingDocument(true)) {
                    dc.wire().bytes().write(format.marker(durableIndex), 0, LogRecordFormat.MARKER_BYTES);
                }
                syncer.noteWrite(clock.cycle());
                lastMarker = durableIndex;
            }
            syncer.force();
        } catch (IOException | RuntimeException | InternalError e) {
            throw fail("cannot force records " + durableIndex + " to " + (target - 1) + " of " + dir + " to the device", e);
        }
        durableIndex = target;
        forcedSinceOpen = true;
        lastForceNanos = options.clock().nanoTime();
    }

    private void deleteTrimmedSegments() {
        int n = segments.countWhollyBelow(storedFirstIndex);
        int deleted = 0;
        try {
            while (deleted < n) {
                files.delete(segments.cycle(deleted));
                deleted++;
            }
        } catch (IOException e) {
            LOG.warn("Cannot delete trimmed segment {} of {}; will retry at the next sync", files.path(segments.cycle(deleted)), dir, e);
        }
        if (deleted > 0) {
            segments.removeFirst(deleted);
            queue.refreshDirectoryListing();
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
        return nextIndex;
    }

    /**
     * {@inheritDoc} Under {@link SyncPolicy#NONE}, "durable" means "survives a process crash" (see
     * {@link SyncPolicy#NONE}). Single writer thread; never blocks.
     */
    @Override
    public long durableIndex() {
        checkOpen();
        return durableIndex;
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
        long end = Math.min(nextIndex, fromIndex + Math.max(0, maxRecords));
        if (fromIndex >= end) {
            return 0;
        }
        int slot = segments.slotOf(fromIndex);
        moveTo(slot, fromIndex);
        int n = 0;
        for (long i = fromIndex; i < end; i++, n++) {
            if (slot + 1 < segments.size() && i == segments.firstIndex(slot + 1)) {
                slot++;
                moveTo(slot, i);
            }
            int length = readRecord(i, slot);
            readView.limit(length).position(0);
            visitor.visit(i, readView);
        }
        return n;
    }

    private void moveTo(int slot, long index) {
        boolean found;
        try {
            found = tailer.moveToIndex(rollCycle.toIndex(segments.cycle(slot), index - segments.firstIndex(slot)));
        } catch (RuntimeException | InternalError e) {
            throw new DurableLogException("cannot seek to record " + index + " in " + segmentPath(slot), e);
        }
        if (!found) {
            throw new DurableLogException("record " + index + " is missing from " + segmentPath(slot));
        }
    }

    /** Reads record {@code index} into {@link #readBuffer}; returns its payload length. */
    private int readRecord(long index, int slot) {
        String problem;
        int payloadLength = 0;
        try (DocumentContext dc = tailer.readingDocument()) {
            if (!dc.isPresent()) {
                throw new DurableLogException("record " + index + " is missing from " + segmentPath(slot));
            }
            Bytes<?> bytes = dc.wire().bytes();
            long length = bytes.readRemaining();
            if (length < LogRecordFormat.RECORD_HEADER_BYTES
                    || length > LogRecordFormat.RECORD_HEADER_BYTES + (long) ChronicleLogOptions.MAX_RECORD_BYTES_LIMIT) {
                problem = "an excerpt of " + length + " bytes cannot be a record";
            } else {
                payloadLength = (int) (length - LogRecordFormat.RECORD_HEADER_BYTES);
                ensureReadBuffer(payloadLength);
                bytes.read(readHeader, 0, LogRecordFormat.RECORD_HEADER_BYTES);
                bytes.read(readBuffer, 0, payloadLength);
                problem = format.checkRecord(readHeader, readBuffer, length);
                if (problem == null && LogRecordFormat.recordIndex(readHeader) != index) {
                    problem = "it holds index " + LogRecordFormat.recordIndex(readHeader);
                }
            }
        } catch (RuntimeException | InternalError e) {
            if (e instanceof DurableLogException) {
                throw (DurableLogException) e;
            }
            throw new DurableLogException("cannot read record " + index + " from " + segmentPath(slot), e);
        }
        if (problem != null) {
            throw new DurableLogException("record " + index + " in " + segmentPath(slot) + " is damaged: " + problem);
        }
        return payloadLength;
    }

    private void ensureReadBuffer(int length) {
        if (readBuffer.length < length) {
            readBuffer = new byte[Math.max(length, readBuffer.length * 2)];
            readView = ByteBuffer.wrap(readBuffer).asReadOnlyBuffer();
        }
    }

    private Path segmentPath(int slot) {
        return files.path(segments.cycle(slot));
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
     * {@inheritDoc} Under {@link SyncPolicy#EVERY_BATCH}, when every record is durable, removes the
     * {@code parallax-log.running} marker at once (blocking on a directory force), so that a crash
     * does not make the next open report amnesia again; otherwise no I/O: the marker goes at the
     * next clean {@link #close}.
     */
    @Override
    public void amnesiaResolved() {
        checkOpen();
        amnesia = false;
        if (options.syncPolicy() == SyncPolicy.EVERY_BATCH && failure == null && durableIndex == nextIndex) {
            try {
                RunningMarker.remove(dir, io);
            } catch (IOException | RuntimeException e) {
                throw new DurableLogException("cannot record the end of the amnesia recovery in " + dir, e);
            }
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
        if (failure != null || amnesia || !RunningMarker.present(dir)) {
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
        closeQuietly("tailer", tailer::close);
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

    private DurableLogException fail(String message, Throwable cause) {
        DurableLogException e = new DurableLogException(message, cause);
        if (failure == null) {
            failure = e;
            LOG.error("The log in {} failed and accepts no more writes: {}", dir, message, cause);
        }
        return e;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("log is closed");
        }
    }

    private void checkWritable() {
        checkOpen();
        if (failure != null) {
            throw new DurableLogException("the log in " + dir + " failed earlier and accepts no more writes; "
                    + "reopen it once the storage is fixed: " + failure.getMessage(), failure);
        }
    }

    @Override
    public String toString() {
        return "ChronicleDurableLog[" + dir + ", " + options.syncPolicy() + ", [" + firstIndex + ", " + nextIndex
                + "), durable " + durableIndex + "]";
    }
}
