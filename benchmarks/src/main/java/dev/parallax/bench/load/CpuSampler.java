package dev.parallax.bench.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time of a process from {@code /proc/<pid>/stat} (user + system time, fields 14 and 15, in
 * clock ticks of 1/100 s on Linux). Stateless and thread-safe.
 */
public final class CpuSampler {
    /** Clock ticks per second ({@code getconf CLK_TCK}); 100 on every Linux this runs on. */
    static final double TICKS_PER_SECOND = 100.0;

    private CpuSampler() {
    }

    /** CPU seconds used so far by process {@code pid}, or -1 if it cannot be read (not Linux, process gone). */
    public static double cpuSeconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // The command name (field 2) may contain spaces: parse after its closing parenthesis.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long utime = Long.parseLong(f[11]);
            long stime = Long.parseLong(f[12]);
            return (utime + stime) / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
