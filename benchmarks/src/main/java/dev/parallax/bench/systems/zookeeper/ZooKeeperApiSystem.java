package dev.parallax.bench.systems.zookeeper;

import dev.parallax.bench.systems.BenchSystem;

/**
 * A system whose clients speak ZooKeeper's API ({@link ZooKeeperInvoker}): Apache ZooKeeper
 * ({@link ZooKeeperSystem}) and Volery ({@code VolerySystem}, seed 004 (S-SMR / Eyrie / Volery) §V-B),
 * driven by the same {@link ZkWorkload} so that their comparison is like for like
 * ({@code ./parallax bench --zk-global}). Lifecycle and threading as {@link BenchSystem}.
 */
public interface ZooKeeperApiSystem extends BenchSystem {

    /**
     * The workload every connection opened later runs; call before {@link #connect}. A workload
     * with global commands adds {@link ZkWorkload#nameSuffix()} to {@link #name()}.
     *
     * @return this system
     */
    ZooKeeperApiSystem workload(ZkWorkload workload);

    /** The workload the connections run ({@link ZkWorkload#DEFAULT} unless set). */
    ZkWorkload workload();
}
