package dev.parallax.core.log;

import java.nio.ByteBuffer;
import java.nio.file.Path;

/** Run by {@link ChronicleQuietTest} in a JVM of its own: opens a log, prints the properties. */
public final class ChronicleQuietProbe {

    private ChronicleQuietProbe() {
    }

    public static void main(String[] args) {
        String before = System.getProperty("chronicle.analytics.disable") + ","
                + System.getProperty("chronicle.announcer.disable");
        long appended;
        try (ChronicleDurableLog log = ChronicleDurableLog.open(Path.of(args[0]))) {
            log.append(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            log.sync();
            appended = log.nextIndex() - log.firstIndex();
        }
        System.out.println("before=" + before + " after=" + System.getProperty("chronicle.analytics.disable")
                + "," + System.getProperty("chronicle.announcer.disable") + " appended=" + appended);
    }
}
