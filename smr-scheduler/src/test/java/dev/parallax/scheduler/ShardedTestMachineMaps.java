package dev.parallax.scheduler;

import dev.parallax.scheduler.classmap.ClassMap;
import dev.parallax.scheduler.classmap.ShardedClasses;

/** Class maps the tests share. */
final class ShardedTestMachineMaps {
    private ShardedTestMachineMaps() {
    }

    /** The two-shard map squeezed onto one thread. */
    static ClassMap single() {
        return new ShardedClasses(2).classMap(1);
    }
}
