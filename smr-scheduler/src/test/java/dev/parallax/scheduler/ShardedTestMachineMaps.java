package dev.parallax.scheduler;

import dev.parallax.core.testkit.executor.ExecutorWorkload;
import dev.parallax.core.testkit.executor.ShardedTestMachine;
import dev.parallax.scheduler.classmap.ClassMap;
import dev.parallax.scheduler.classmap.ReadWriteClasses;
import dev.parallax.scheduler.classmap.ShardedClasses;

/**
 * The class maps and classifiers of the testkit's {@link ShardedTestMachine}, which the tests of
 * this module share: how an {@link ExecutorWorkload} becomes the scheduler's configuration.
 * Stateless.
 */
final class ShardedTestMachineMaps {
    private ShardedTestMachineMaps() {
    }

    /** The two-shard map squeezed onto one thread. */
    static ClassMap single() {
        return new ShardedClasses(2).classMap(1);
    }

    /** The workload's map: read/write classes or one read and one write class per shard, over its threads. */
    static ClassMap classMap(ExecutorWorkload w) {
        return w.readWriteOnly() ? ReadWriteClasses.classMap(w.threads())
                : new ShardedClasses(w.shards()).classMap(w.threads());
    }

    /** The classifier matching {@link #classMap(ExecutorWorkload)}. */
    static CommandClassifier classifier(ExecutorWorkload w) {
        return w.readWriteOnly() ? readWriteClassifier() : shardedClassifier(new ShardedClasses(w.shards()));
    }

    /**
     * Local commands (and the state-less {@code NULL_REPLY} and {@code FATAL}) to their shard's
     * read or write class, global ones to the global classes; any other op throws.
     */
    static CommandClassifier shardedClassifier(ShardedClasses classes) {
        return c -> {
            byte op = ShardedTestMachine.op(c);
            int shard = ShardedTestMachine.shard(c);
            return switch (op) {
                case ShardedTestMachine.LOCAL_READ, ShardedTestMachine.NULL_REPLY -> classes.localRead(shard);
                case ShardedTestMachine.LOCAL_WRITE, ShardedTestMachine.FATAL -> classes.localWrite(shard);
                case ShardedTestMachine.GLOBAL_READ -> classes.globalRead();
                case ShardedTestMachine.GLOBAL_WRITE -> classes.globalWrite();
                default -> throw new IllegalArgumentException("op " + op);
            };
        };
    }

    /** Reads to {@link ReadWriteClasses#READ}, everything else to {@link ReadWriteClasses#WRITE}. */
    static CommandClassifier readWriteClassifier() {
        return c -> {
            byte op = ShardedTestMachine.op(c);
            return op == ShardedTestMachine.LOCAL_READ || op == ShardedTestMachine.GLOBAL_READ
                    ? ReadWriteClasses.READ : ReadWriteClasses.WRITE;
        };
    }
}
