package dev.parallax.core.testkit;

import java.util.ArrayList;
import java.util.List;

/**
 * Fingerprints a simulated run (FNV-1a over every trace line) and keeps its last lines for failure
 * reports. A trace line is the event's virtual time in microseconds, {@code "us "}, then its text;
 * the hash runs over those characters and a newline, without building the line, and the tail keeps
 * time and text apart until a report asks for it. Not thread-safe.
 */
final class TraceRecorder {
    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private final long[] tailTimes;
    private final String[] tailLines;
    /** Scratch for the decimal digits of a time (a long has at most 19, plus a sign). */
    private final char[] digits = new char[20];
    private long count;
    private long hash = FNV_OFFSET;

    TraceRecorder(int tailSize) {
        this.tailTimes = new long[tailSize];
        this.tailLines = new String[tailSize];
    }

    void record(long time, String line) {
        long h = hash;
        long us = time / 1_000;
        if (us < 0) {
            String prefix = Long.toString(us);
            for (int i = 0; i < prefix.length(); i++) {
                h = (h ^ prefix.charAt(i)) * FNV_PRIME;
            }
        } else {
            int n = 0;
            do {
                digits[n++] = (char) ('0' + (int) (us % 10));
                us /= 10;
            } while (us != 0);
            while (n > 0) {
                h = (h ^ digits[--n]) * FNV_PRIME;
            }
        }
        h = (h ^ 'u') * FNV_PRIME;
        h = (h ^ 's') * FNV_PRIME;
        h = (h ^ ' ') * FNV_PRIME;
        for (int i = 0, len = line.length(); i < len; i++) {
            h = (h ^ line.charAt(i)) * FNV_PRIME;
        }
        hash = (h ^ '\n') * FNV_PRIME;
        int at = (int) (count++ % tailLines.length);
        tailTimes[at] = time;
        tailLines[at] = line;
    }

    long hash() {
        return hash;
    }

    List<String> tail() {
        List<String> out = new ArrayList<>();
        long start = Math.max(0, count - tailLines.length);
        for (long i = start; i < count; i++) {
            int at = (int) (i % tailLines.length);
            out.add((tailTimes[at] / 1_000) + "us " + tailLines[at]);
        }
        return out;
    }
}
