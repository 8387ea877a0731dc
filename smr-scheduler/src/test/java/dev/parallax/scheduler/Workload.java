package dev.parallax.scheduler;

import dev.parallax.core.Command;
import dev.parallax.scheduler.classmap.ClassMap;
import dev.parallax.scheduler.classmap.ReadWriteClasses;
import dev.parallax.scheduler.classmap.ShardedClasses;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A randomized workload over {@link ShardedTestMachine}, in seed 001's terms (§5.4): a share of
 * local writes, a share of global operations of which a share are writes, balanced or skewed
 * towards shard 0, a per-command cost, and a share of commands the state machine rejects (by throwing
 * or, half of them, by returning {@code null}).
 */
record Workload(int shards, int threads, boolean readWriteMap, int commands, double localWrites,
                double globals, double globalWrites, boolean skewed, int maxCost, double failures,
                int capacity, long seed) {

    ClassMap classMap() {
        return readWriteMap ? ReadWriteClasses.classMap(threads) : new ShardedClasses(shards).classMap(threads);
    }

    CommandClassifier classifier() {
        return readWriteMap ? ShardedTestMachine.readWriteClassifier()
                : ShardedTestMachine.shardedClassifier(new ShardedClasses(shards));
    }

    List<Command> generate() {
        SplittableRandom r = new SplittableRandom(seed);
        List<Command> out = new ArrayList<>(commands);
        for (int i = 1; i <= commands; i++) {
            byte op;
            if (r.nextDouble() < globals) {
                op = r.nextDouble() < globalWrites ? ShardedTestMachine.GLOBAL_WRITE : ShardedTestMachine.GLOBAL_READ;
            } else {
                op = r.nextDouble() < localWrites ? ShardedTestMachine.LOCAL_WRITE : ShardedTestMachine.LOCAL_READ;
            }
            int shard = skewed && r.nextDouble() < 0.8 ? 0 : r.nextInt(shards);
            int cost = maxCost == 0 ? 0 : r.nextInt(maxCost + 1);
            boolean fail = r.nextDouble() < failures;
            if (fail && r.nextBoolean()) {
                op = ShardedTestMachine.NULL_REPLY;
                fail = false;
            }
            out.add(ShardedTestMachine.command(i, op, shard, r.nextInt(1000), cost, fail));
        }
        return out;
    }
}
