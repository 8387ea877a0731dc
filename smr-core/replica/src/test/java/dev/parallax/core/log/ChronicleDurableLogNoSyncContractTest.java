package dev.parallax.core.log;

import dev.parallax.core.spi.SyncPolicy;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.testkit.DurableLogContract;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * The {@link DurableLogContract} under {@link SyncPolicy#NONE}, whose durability is "survives a
 * process crash" (a crash here is a close without sync, which is what a process crash leaves in
 * the page cache); broken storage is a queue whose mapping vanished.
 */
class ChronicleDurableLogNoSyncContractTest extends DurableLogContract {
    @TempDir
    Path dir;

    @Override
    protected DurableLog openLog() {
        return ChronicleDurableLog.open(dir, ChronicleLogOptions.defaults().withSyncPolicy(SyncPolicy.NONE)
                .withSegmentBytes(256 << 10));
    }

    @Override
    protected void crash(DurableLog open) {
        open.close();
    }

    @Override
    protected void breakStorage(DurableLog open) {
        ((ChronicleDurableLog) open).loseStorageForTest();
    }
}
