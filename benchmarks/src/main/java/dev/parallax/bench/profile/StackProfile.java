package dev.parallax.bench.profile;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * CPU samples of a JFR recording ({@code jdk.ExecutionSample}) folded into stacks: each distinct
 * stack, root first, with the thread's name as the root frame, and how many samples it got — the
 * "collapsed stacks" form flame graphs are drawn from. Also the hottest methods by self time.
 * Immutable once read.
 */
public final class StackProfile {
    private final Map<String, Long> folded;
    private final long samples;

    private StackProfile(Map<String, Long> folded) {
        this.folded = folded;
        this.samples = folded.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Reads the execution samples of {@code jfr}. Thread names have trailing digits collapsed
     * ({@code client-io-1-3} → {@code client-io-1-N}) so a pool shows as one root.
     *
     * @throws IOException if the file cannot be read as a JFR recording
     */
    public static StackProfile read(Path jfr) throws IOException {
        Map<String, Long> folded = new HashMap<>();
        try (RecordingFile file = new RecordingFile(jfr)) {
            while (file.hasMoreEvents()) {
                RecordedEvent e = file.readEvent();
                if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
                    continue;
                }
                RecordedStackTrace st = e.getStackTrace();
                if (st == null) {
                    continue;
                }
                RecordedThread t = e.getThread("sampledThread");
                StringBuilder sb = new StringBuilder(threadName(t));
                List<RecordedFrame> frames = st.getFrames();
                for (int i = frames.size() - 1; i >= 0; i--) {
                    RecordedFrame f = frames.get(i);
                    if (f.getMethod() == null) {
                        continue;
                    }
                    String type = f.getMethod().getType().getName();
                    sb.append(';').append(type.substring(type.lastIndexOf('.') + 1)).append('.').append(f.getMethod().getName());
                }
                folded.merge(sb.toString(), 1L, Long::sum);
            }
        }
        return new StackProfile(folded);
    }

    private static String threadName(RecordedThread t) {
        String name = t == null || t.getJavaName() == null ? "?" : t.getJavaName();
        return name.replaceAll("-\\d+$", "-N");
    }

    /** Stack (root first, {@code ;}-separated) to sample count. */
    public Map<String, Long> folded() {
        return folded;
    }

    /** Total samples. */
    public long samples() {
        return samples;
    }

    /** The {@code limit} methods with the most samples at the top of the stack, with their share. */
    public Map<String, Double> hottestSelf(int limit) {
        Map<String, Long> self = new HashMap<>();
        folded.forEach((stack, n) -> self.merge(stack.substring(stack.lastIndexOf(';') + 1), n, Long::sum));
        return top(self, limit);
    }

    /** Share of samples per root (thread), highest first. */
    public Map<String, Double> byThread() {
        Map<String, Long> roots = new HashMap<>();
        folded.forEach((stack, n) -> {
            int i = stack.indexOf(';');
            roots.merge(i < 0 ? stack : stack.substring(0, i), n, Long::sum);
        });
        return top(roots, Integer.MAX_VALUE);
    }

    /** The {@code limit} methods present anywhere on the most samples (inclusive share). */
    public Map<String, Double> hottestTotal(int limit) {
        Map<String, Long> total = new HashMap<>();
        folded.forEach((stack, n) -> {
            for (String frame : new java.util.HashSet<>(List.of(stack.split(";")))) {
                total.merge(frame, n, Long::sum);
            }
        });
        return top(total, limit);
    }

    private Map<String, Double> top(Map<String, Long> counts, int limit) {
        List<Map.Entry<String, Long>> entries = new ArrayList<>(counts.entrySet());
        entries.sort(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()));
        return entries.stream().limit(limit).collect(Collectors.toMap(Map.Entry::getKey,
                e -> samples == 0 ? 0.0 : e.getValue() / (double) samples, (a, b) -> a, LinkedHashMap::new));
    }
}
