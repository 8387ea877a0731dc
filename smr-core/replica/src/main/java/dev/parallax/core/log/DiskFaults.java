package dev.parallax.core.log;

import dev.parallax.core.spi.SyncPolicy;
import dev.parallax.core.spi.DurableLog;

import java.nio.file.Path;

/**
 * For tests in other modules: opens a {@link ChronicleDurableLog} over a storage stack that can
 * be made to run out of space or fail its forces at run time, like a real disk.
 *
 * <p>Thread-safe: the faults may be switched from any thread while the log is in use.
 */
public final class DiskFaults {
    private final FaultyStorageIo io = new FaultyStorageIo();

    /** Opens (creating if needed) a log in {@code dir} over this stack, with {@code sync}. */
    public DurableLog open(Path dir, SyncPolicy sync) {
        return ChronicleDurableLog.open(dir, ChronicleLogOptions.defaults().withSyncPolicy(sync), io);
    }

    /** From now on the file system reports no usable space: the log refuses appends once its granted budget is used. */
    public void fillDisk() {
        io.usableSpace(0);
    }

    /** From now on every force fails as {@code fsync} does after a device error (EIO). */
    public void failForces() {
        io.failForces();
    }
}
