package dev.parallax.core.testkit;

import java.util.ArrayList;
import java.util.List;

/**
 * Fingerprints a simulated run (FNV-1a over every trace line) and keeps its last lines for failure
 * reports. Not thread-safe.
 */
final class TraceRecorder {
    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private final String[] tail;
    private long count;
    private long hash = FNV_OFFSET;

    TraceRecorder(int tailSize) {
        this.tail = new String[tailSize];
    }

    void record(long time, String line) {
        String full = (time / 1_000) + "us " + line;
        long h = hash;
        for (int i = 0; i < full.length(); i++) {
            h = (h ^ full.charAt(i)) * FNV_PRIME;
        }
        hash = (h ^ '\n') * FNV_PRIME;
        tail[(int) (count++ % tail.length)] = full;
    }

    long hash() {
        return hash;
    }

    List<String> tail() {
        List<String> out = new ArrayList<>();
        long start = Math.max(0, count - tail.length);
        for (long i = start; i < count; i++) {
            out.add(tail[(int) (i % tail.length)]);
        }
        return out;
    }
}
