package dev.parallax.core.log;

import dev.parallax.core.spi.DurableLogException;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Refuses appends before the disk is full. Chronicle Queue writes through a memory mapping of a
 * sparse file; a page the file system cannot back when it is first written raises SIGBUS, which
 * the JVM reports as an {@link InternalError} at best. So the log keeps
 * {@code reserveBytes} free and asks the file system for free space once per
 * {@value #CHECK_INTERVAL_BYTES} bytes appended, not per record (a {@code statvfs} per append
 * would cost more than the append).
 *
 * <p>Single-threaded (the log's writer); {@link #reserve} blocks only when it asks the file system.
 */
final class SpaceGuard {
    static final long CHECK_INTERVAL_BYTES = 1L << 20;

    private final Path dir;
    private final long reserveBytes;
    private final StorageIo io;
    /** Bytes that may be appended before the next look at the file system. */
    private long budget;

    SpaceGuard(Path dir, long reserveBytes, StorageIo io) {
        this.dir = dir;
        this.reserveBytes = reserveBytes;
        this.io = io;
    }

    /**
     * Accounts for {@code bytes} about to be written.
     *
     * @throws DurableLogException if the file system has less than the reserve left (nothing has
     *                             been written; a later call looks again)
     */
    void reserve(long bytes) {
        if (bytes > budget) {
            long usable;
            try {
                usable = io.usableSpace(dir);
            } catch (IOException e) {
                throw new DurableLogException("cannot read the free space of " + dir, e);
            }
            long spare = usable - reserveBytes;
            if (spare < bytes) {
                budget = 0;
                throw new DurableLogException("disk full: " + usable + " bytes usable under " + dir
                        + ", the log keeps " + reserveBytes + " in reserve and needs " + bytes + " more");
            }
            budget = Math.min(spare, Math.max(CHECK_INTERVAL_BYTES, bytes));
        }
        budget -= bytes;
    }
}
