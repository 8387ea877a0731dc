package dev.parallax.core.log;

import dev.parallax.core.spi.SyncPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Decides at open whether the log may have forgotten records, and leaves the marks that let the
 * next open decide: a {@code parallax-log.running} file ({@link RunningMarker}) left by a process
 * that did not close cleanly, or a directory that holds neither records nor the
 * {@code parallax-log.created} mark ({@link CreationMark}) under
 * {@link ChronicleLogOptions.EmptyDirectory#LOST}, means possible amnesia (each logged at WARN).
 * It then places the running marker (under {@link SyncPolicy#PERIODIC} and {@link SyncPolicy#NONE},
 * or while amnesia is possible) and, after it, the creation mark.
 *
 * <p>Stateless; runs on the opening thread and blocks on file and directory forces.
 */
final class AmnesiaCheck {
    private static final Logger LOG = LoggerFactory.getLogger(ChronicleDurableLog.class);

    private AmnesiaCheck() {
    }

    /**
     * Checks {@code dir}, whose recovered records span {@code [firstIndex, nextIndex)}, and places
     * the markers.
     *
     * @return whether records the log reported durable may be missing
     */
    static boolean atOpen(Path dir, ChronicleLogOptions options, StorageIo io, long firstIndex, long nextIndex)
            throws IOException {
        boolean amnesia = RunningMarker.present(dir);
        if (amnesia) {
            LOG.warn("The log in {} was not closed cleanly by a process that did not force every record "
                    + "(sync policy PERIODIC or NONE), or was never rebuilt after its directory was lost: "
                    + "records it reported durable may be missing", dir);
        }
        boolean lost = !CreationMark.present(dir) && nextIndex == 0 && firstIndex == 0
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
        return amnesia;
    }
}
