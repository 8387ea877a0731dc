package dev.parallax.scheduler.classmap;

/**
 * The request classes of seed 001's sharded workload (§4.1 example, §5.2, Figures 4.1 and 5.1):
 * with {@code n} shards there are {@code 2n + 2} classes, a local read class {@code Rx} and a local
 * write class {@code Wx} per shard {@code x = 1..n}, a global read class {@code Rg} and a global
 * write class {@code Wg}.
 *
 * <p>Conflicts: {@code Rx} with {@code Wx} and {@code Wg}; {@code Wx} with itself, {@code Rx},
 * {@code Rg} and {@code Wg}; {@code Rg} with itself (seed 001 §4.1: more concurrency than if it did
 * not), every {@code Wx} and {@code Wg}; {@code Wg} with every class. Reads of different shards and
 * writes of different shards are independent.
 *
 * <p>Class indices: {@code Rx} is {@code x-1}, {@code Wx} is {@code n+x-1}, {@code Rg} is
 * {@code 2n}, {@code Wg} is {@code 2n+1}; the methods below take 0-based shard numbers.
 *
 * <p>Immutable and thread-safe.
 *
 * @param shards the number of shards, {@code >= 1}
 */
public record ShardedClasses(int shards) {

    /** @throws IllegalArgumentException if {@code shards < 1} */
    public ShardedClasses {
        if (shards < 1) {
            throw new IllegalArgumentException("shards must be >= 1, got " + shards);
        }
    }

    /** The number of classes, {@code 2n + 2}. */
    public int classCount() {
        return 2 * shards + 2;
    }

    /** The class of a read of shard {@code shard} (0-based). */
    public int localRead(int shard) {
        return checkShard(shard);
    }

    /** The class of a write to shard {@code shard} (0-based). */
    public int localWrite(int shard) {
        return shards + checkShard(shard);
    }

    /** The class of a read of every shard. */
    public int globalRead() {
        return 2 * shards;
    }

    /** The class of a write to every shard. */
    public int globalWrite() {
        return 2 * shards + 1;
    }

    /**
     * The map of seed 001 §5.2.2 over {@code t = 2n} threads: shard {@code x} owns threads
     * {@code 2x, 2x+1} (its read class is CONC and its write class SEQ on both), {@code Rg} is SEQ on
     * the first thread of every shard, {@code Wg} is SEQ on all threads (Table 5.2's shape, which
     * also fixes the rule-5 error of the extracted Table 5.1).
     */
    public ClassMap classMap() {
        return classMap(2 * shards);
    }

    /**
     * The same shape over any number of threads: threads are split into {@code n} contiguous
     * blocks, {@code floor(j * n / t)} being thread {@code j}'s shard; with fewer threads than
     * shards, shard {@code x} runs on thread {@code floor(x * t / n)}.
     *
     * @throws IllegalArgumentException if {@code threads < 1}
     */
    public ClassMap classMap(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        int[][] shardThreads = new int[shards][];
        for (int x = 0; x < shards; x++) {
            if (threads >= shards) {
                int from = ceilDiv(x * threads, shards);
                int to = ceilDiv((x + 1) * threads, shards);
                shardThreads[x] = range(from, to);
            } else {
                shardThreads[x] = new int[] {x * threads / shards};
            }
        }
        ClassMap.Builder b = ClassMap.builder(threads);
        for (int x = 0; x < shards; x++) {
            b.conc("R" + (x + 1), shardThreads[x]);
        }
        for (int x = 0; x < shards; x++) {
            b.seq("W" + (x + 1), shardThreads[x]);
        }
        int[] firsts = new int[shards];
        for (int x = 0; x < shards; x++) {
            firsts[x] = shardThreads[x][0];
        }
        b.seq("Rg", firsts);
        b.seq("Wg", range(0, threads));
        for (int x = 1; x <= shards; x++) {
            b.conflict("R" + x, "W" + x).conflict("R" + x, "Wg");
            b.conflict("W" + x, "W" + x).conflict("W" + x, "Rg").conflict("W" + x, "Wg");
        }
        b.conflict("Rg", "Rg").conflict("Rg", "Wg").conflict("Wg", "Wg");
        return b.build();
    }

    private int checkShard(int shard) {
        if (shard < 0 || shard >= shards) {
            throw new IllegalArgumentException("shard " + shard + " outside [0, " + shards + ")");
        }
        return shard;
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }

    private static int[] range(int from, int to) {
        int[] r = new int[to - from];
        for (int i = 0; i < r.length; i++) {
            r[i] = from + i;
        }
        return r;
    }
}
