package dev.parallax.scheduler.classmap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * A class-to-threads map, {@code CtoT} of seed 001 §4.2.2 (Definition 3), together with the
 * request classes' conflict graph (§4.1, Definition 2): for each class its name, its mode
 * ({@link ClassMode#SEQ} or {@link ClassMode#CONC}) and its set of worker threads
 * {@code t0 .. t(n-1)}.
 *
 * <p>Classes are numbered in the order they were added to the {@link Builder}; a
 * {@link dev.parallax.scheduler.CommandClassifier} returns these numbers. Every map that exists
 * satisfies the five rules of §4.2.2 ({@link ClassMapValidator}).
 *
 * <p>Immutable and thread-safe.
 */
public final class ClassMap {
    private final int threadCount;
    private final String[] names;
    private final ClassMode[] modes;
    private final int[][] threads;
    private final boolean[][] conflicts;
    private final Map<String, Integer> indexByName;

    private ClassMap(Builder b) {
        this.threadCount = b.threadCount;
        int n = b.classes.size();
        this.names = new String[n];
        this.modes = new ClassMode[n];
        this.threads = new int[n][];
        this.conflicts = new boolean[n][n];
        this.indexByName = new HashMap<>();
        int i = 0;
        for (Builder.Decl d : b.classes.values()) {
            names[i] = d.name;
            modes[i] = d.mode;
            threads[i] = d.threads;
            indexByName.put(d.name, i);
            i++;
        }
        for (String[] pair : b.conflictPairs) {
            int x = indexByName.get(pair[0]);
            int y = indexByName.get(pair[1]);
            conflicts[x][y] = true;
            conflicts[y][x] = true;
        }
    }

    /** A new builder for a map over {@code threadCount} worker threads. */
    public static Builder builder(int threadCount) {
        return new Builder(threadCount);
    }

    /** The number of worker threads {@code n}; thread ids are {@code 0 .. n-1}. */
    public int threadCount() {
        return threadCount;
    }

    /** The number of request classes. */
    public int classCount() {
        return names.length;
    }

    /** The name of class {@code c}. @throws IndexOutOfBoundsException if there is no such class */
    public String name(int c) {
        return names[c];
    }

    /**
     * The index of the class called {@code name}.
     *
     * @throws IllegalArgumentException if there is no such class
     */
    public int indexOf(String name) {
        Integer i = indexByName.get(name);
        if (i == null) {
            throw new IllegalArgumentException("no class named " + name);
        }
        return i;
    }

    /** The mode of class {@code c}. */
    public ClassMode mode(int c) {
        return modes[c];
    }

    /** The threads of class {@code c}, ascending; a fresh copy. */
    public int[] threads(int c) {
        return threads[c].clone();
    }

    int[] threadsOf(int c) {
        return threads[c];
    }

    /** Whether classes {@code a} and {@code b} conflict (symmetric; {@code a == b} allowed). */
    public boolean conflicts(int a, int b) {
        return conflicts[a][b];
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("ClassMap[threads=").append(threadCount);
        for (int c = 0; c < names.length; c++) {
            sb.append(", ").append(names[c]).append('=').append(modes[c]).append(Arrays.toString(threads[c]));
        }
        return sb.append(']').toString();
    }

    /**
     * Collects classes and conflicts, then {@link #build() builds} a validated map.
     *
     * <p>Not thread-safe: use from one thread.
     */
    public static final class Builder {
        private final int threadCount;
        private final Map<String, Decl> classes = new LinkedHashMap<>();
        private final List<String[]> conflictPairs = new ArrayList<>();

        private Builder(int threadCount) {
            if (threadCount < 1) {
                throw new IllegalArgumentException("threadCount must be >= 1, got " + threadCount);
            }
            this.threadCount = threadCount;
        }

        /**
         * Adds the next class (its index is the number of classes added before it).
         *
         * @param threads the class's thread ids; duplicates are ignored; may be empty (the map then
         *                fails rule 1 at {@link #build()})
         * @throws IllegalArgumentException if the name is taken or a thread id is outside
         *                                  {@code [0, threadCount)}
         */
        public Builder addClass(String name, ClassMode mode, int... threads) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(mode, "mode");
            if (classes.containsKey(name)) {
                throw new IllegalArgumentException("duplicate class name " + name);
            }
            TreeSet<Integer> set = new TreeSet<>();
            for (int t : threads) {
                if (t < 0 || t >= threadCount) {
                    throw new IllegalArgumentException("class " + name + ": thread " + t + " outside [0, "
                            + threadCount + ")");
                }
                set.add(t);
            }
            classes.put(name, new Decl(name, mode, set.stream().mapToInt(Integer::intValue).toArray()));
            return this;
        }

        /** Shorthand for {@link #addClass(String, ClassMode, int...)} with {@link ClassMode#SEQ}. */
        public Builder seq(String name, int... threads) {
            return addClass(name, ClassMode.SEQ, threads);
        }

        /** Shorthand for {@link #addClass(String, ClassMode, int...)} with {@link ClassMode#CONC}. */
        public Builder conc(String name, int... threads) {
            return addClass(name, ClassMode.CONC, threads);
        }

        /**
         * Declares that classes {@code a} and {@code b} conflict (symmetric; {@code a} may equal
         * {@code b} for a self-conflicting class).
         *
         * @throws IllegalArgumentException if either class was not added
         */
        public Builder conflict(String a, String b) {
            for (String x : new String[] {a, b}) {
                if (!classes.containsKey(x)) {
                    throw new IllegalArgumentException("no class named " + x);
                }
            }
            conflictPairs.add(new String[] {a, b});
            return this;
        }

        /**
         * Builds the map.
         *
         * @throws IllegalArgumentException  if no class was added
         * @throws InvalidClassMapException if the map breaks a rule of seed 001 §4.2.2
         */
        public ClassMap build() {
            if (classes.isEmpty()) {
                throw new IllegalArgumentException("a class map needs at least one class");
            }
            ClassMap map = new ClassMap(this);
            ClassMapValidator.validate(map);
            return map;
        }

        /** The map without validation, so that tests can hand a broken map to the validator. */
        ClassMap buildUnchecked() {
            return new ClassMap(this);
        }

        private record Decl(String name, ClassMode mode, int[] threads) {
        }
    }
}
