package dev.parallax.bench.profile;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Per-thread CPU of a Linux process from {@code /proc/<pid>/task/<tid>/{stat,status}}: user and
 * system clock ticks and voluntary/involuntary context switches. Two snapshots give where a
 * process's CPU went during an interval, split by thread pool (trailing digits of thread names
 * collapsed), including kernel time that a Java profiler does not see. Snapshots are immutable;
 * reading one blocks for the file reads.
 */
public final class ThreadCpu {
    /** Clock ticks per second of {@code /proc} times (USER_HZ, 100 on Linux). */
    private static final double TICKS_PER_SECOND = 100.0;
    private static final Pattern VOLUNTARY = Pattern.compile("(?m)^voluntary_ctxt_switches:\\s+(\\d+)");
    private static final Pattern INVOLUNTARY = Pattern.compile("(?m)^nonvoluntary_ctxt_switches:\\s+(\\d+)");

    /** One thread's counters. */
    record Counters(String name, long userTicks, long systemTicks, long voluntary, long involuntary) {
    }

    /** CPU of one thread pool over an interval. */
    public record Usage(String threads, double userSeconds, double systemSeconds, long voluntarySwitches,
                        long involuntarySwitches) {
        /** User plus system seconds. */
        public double cpuSeconds() {
            return userSeconds + systemSeconds;
        }
    }

    private final Map<String, Counters> byTid;

    private ThreadCpu(Map<String, Counters> byTid) {
        this.byTid = byTid;
    }

    /** Snapshot of every thread of {@code pid}; empty if the process is gone or this is not Linux. */
    public static ThreadCpu snapshot(long pid) {
        Map<String, Counters> m = new HashMap<>();
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(tasks)) {
            for (Path t : dir) {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    String status = Files.readString(t.resolve("status"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    m.put(t.getFileName().toString(), new Counters(name, Long.parseLong(f[11]), Long.parseLong(f[12]),
                            match(VOLUNTARY, status), match(INVOLUNTARY, status)));
                } catch (IOException | RuntimeException gone) {
                    // the thread ended between listing and reading
                }
            }
        } catch (IOException e) {
            return new ThreadCpu(Map.of());
        }
        return new ThreadCpu(m);
    }

    private static long match(Pattern p, String text) {
        Matcher m = p.matcher(text);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /**
     * What each thread pool used between {@code before} and this snapshot (threads present in both),
     * highest CPU first.
     */
    public List<Usage> since(ThreadCpu before) {
        Map<String, long[]> pools = new LinkedHashMap<>();
        byTid.forEach((tid, now) -> {
            Counters then = before.byTid.get(tid);
            if (then == null || !then.name().equals(now.name())) {
                return;
            }
            long[] a = pools.computeIfAbsent(now.name().replaceAll("\\d+$", "N"), k -> new long[4]);
            a[0] += now.userTicks() - then.userTicks();
            a[1] += now.systemTicks() - then.systemTicks();
            a[2] += now.voluntary() - then.voluntary();
            a[3] += now.involuntary() - then.involuntary();
        });
        return pools.entrySet().stream()
                .map(e -> new Usage(e.getKey(), e.getValue()[0] / TICKS_PER_SECOND, e.getValue()[1] / TICKS_PER_SECOND,
                        e.getValue()[2], e.getValue()[3]))
                .filter(u -> u.cpuSeconds() > 0 || u.voluntarySwitches() + u.involuntarySwitches() > 0)
                .sorted((x, y) -> Double.compare(y.cpuSeconds(), x.cpuSeconds()))
                .toList();
    }
}
