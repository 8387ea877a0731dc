package dev.parallax.core.log;

import dev.parallax.core.spi.DurableLogException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;

/**
 * Remembers the first failed write or force of a log. After one, the kernel may have dropped the
 * pages it could not write, so no later force could be trusted: the log accepts no more appends or
 * syncs until it is reopened. The first failure is logged at ERROR; later ones only travel as
 * exceptions.
 *
 * <p>The single writer of the failure state; confined to the log's writer thread, never blocks.
 */
final class WriteFailure {
    private static final Logger LOG = LoggerFactory.getLogger(ChronicleDurableLog.class);

    private final Path dir;
    private DurableLogException failure;

    WriteFailure(Path dir) {
        this.dir = dir;
    }

    /** Records the failure (the first one is kept and logged) and returns the exception to throw. */
    DurableLogException fail(String message, Throwable cause) {
        DurableLogException e = new DurableLogException(message, cause);
        if (failure == null) {
            failure = e;
            LOG.error("The log in {} failed and accepts no more writes: {}", dir, message, cause);
        }
        return e;
    }

    /** Whether a write or force has failed since the log opened. */
    boolean failed() {
        return failure != null;
    }

    /** @throws DurableLogException if a write or force failed earlier */
    void check() {
        if (failure != null) {
            throw new DurableLogException("the log in " + dir + " failed earlier and accepts no more writes; "
                    + "reopen it once the storage is fixed: " + failure.getMessage(), failure);
        }
    }
}
