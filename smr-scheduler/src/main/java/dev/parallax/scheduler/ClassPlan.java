package dev.parallax.scheduler;

import dev.parallax.core.Command;
import dev.parallax.scheduler.classmap.ClassMap;
import dev.parallax.scheduler.classmap.ClassMode;

import java.util.Objects;

/**
 * A {@link ClassMap} flattened into arrays for the hot paths of early scheduling, with the
 * scheduler's round-robin cursors (seed 001 Alg. 2, {@code PickInRoundRobin}).
 *
 * <p>Threads: the arrays are immutable after construction and read by every thread;
 * {@link #classify} and {@link #nextConcThread} are called by the scheduling thread only.
 */
final class ClassPlan {
    final int classCount;
    final int threadCount;
    final boolean[] seq;
    final int[][] threads;
    final int[] minThread;
    /** Per class, the bitset (over classes) of the classes it conflicts with. */
    final long[][] conflictMask;
    private final int[] roundRobin;
    private final CommandClassifier classifier;

    ClassPlan(ClassMap map, CommandClassifier classifier) {
        this.classifier = Objects.requireNonNull(classifier, "classifier");
        this.classCount = map.classCount();
        this.threadCount = map.threadCount();
        this.seq = new boolean[classCount];
        this.threads = new int[classCount][];
        this.minThread = new int[classCount];
        this.conflictMask = new long[classCount][];
        this.roundRobin = new int[classCount];
        int words = (classCount + 63) >>> 6;
        for (int c = 0; c < classCount; c++) {
            seq[c] = map.mode(c) == ClassMode.SEQ;
            threads[c] = map.threads(c);
            minThread[c] = threads[c][0];
            conflictMask[c] = new long[words];
            for (int d = 0; d < classCount; d++) {
                if (map.conflicts(c, d)) {
                    conflictMask[c][d >>> 6] |= 1L << d;
                }
            }
        }
    }

    /**
     * The class of {@code command}.
     *
     * @throws UnclassifiableCommandException if the classifier throws or returns an unknown class
     */
    int classify(Command command) {
        int c;
        try {
            c = classifier.classify(command);
        } catch (RuntimeException e) {
            throw UnclassifiableCommandException.classifierThrew(e);
        }
        if (c < 0 || c >= classCount) {
            throw UnclassifiableCommandException.classOutOfRange(c, classCount);
        }
        return c;
    }

    /** The thread that takes the next CONC request of class {@code c}, round-robin. */
    int nextConcThread(int c) {
        int[] ts = threads[c];
        int i = roundRobin[c];
        roundRobin[c] = i + 1 == ts.length ? 0 : i + 1;
        return ts[i];
    }
}
