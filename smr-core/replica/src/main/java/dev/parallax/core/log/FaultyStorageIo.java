package dev.parallax.core.log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/** A {@link StorageIo} over the real file system that can fail like a full or broken disk, and counts forces. */
final class FaultyStorageIo implements StorageIo {
    private volatile boolean failForces;
    private volatile long usableSpaceOverride = -1;
    private final AtomicInteger forces = new AtomicInteger();

    /** Every later force throws, as {@code fsync} does after a device error (EIO). */
    void failForces() {
        failForces = true;
    }

    /** Reports {@code bytes} of usable space instead of the real figure; negative restores it. */
    void usableSpace(long bytes) {
        usableSpaceOverride = bytes;
    }

    int forces() {
        return forces.get();
    }

    @Override
    public long usableSpace(Path dir) throws IOException {
        long override = usableSpaceOverride;
        return override >= 0 ? override : SYSTEM.usableSpace(dir);
    }

    @Override
    public void force(FileChannel channel) throws IOException {
        if (failForces) {
            throw new IOException("injected device error (EIO)");
        }
        forces.incrementAndGet();
        SYSTEM.force(channel);
    }
}
