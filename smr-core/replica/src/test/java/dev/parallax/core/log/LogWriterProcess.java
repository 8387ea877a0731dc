package dev.parallax.core.log;

import dev.parallax.core.spi.SyncPolicy;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The writer of {@link ChronicleDurableLogProcessCrashTest}, run in a child JVM: appends records
 * {@code 0, 1, ...} with {@link LogFiles#payload} contents, syncs every {@code batch} records and
 * prints {@code durable <durableIndex>} after each sync, until it is killed or has run for 60 s.
 *
 * <p>Arguments: log directory, {@link SyncPolicy} name, batch size, payload bytes.
 */
public final class LogWriterProcess {
    private LogWriterProcess() {
    }

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        SyncPolicy policy = SyncPolicy.valueOf(args[1]);
        int batch = Integer.parseInt(args[2]);
        int payload = Integer.parseInt(args[3]);
        long deadline = System.nanoTime() + 60_000_000_000L;
        ChronicleDurableLog log = ChronicleDurableLog.open(dir, ChronicleLogOptions.defaults().withSyncPolicy(policy)
                .withSegmentBytes(1 << 20));
        System.out.println("ready");
        System.out.flush();
        for (long i = 0; System.nanoTime() < deadline; i++) {
            log.append(ByteBuffer.wrap(LogFiles.payload(i, payload)));
            if ((i + 1) % batch == 0) {
                log.sync();
                System.out.println("durable " + log.durableIndex());
                System.out.flush();
            }
        }
        log.close();
    }
}
