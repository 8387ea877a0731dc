/**
 * Helpers for in-process cluster tests over real replicas, sockets and threads, whatever the
 * ordering protocol: a local cluster of replicas and clients ({@code LocalCluster}), a text
 * key-value state machine ({@code TextKv}) and the append workload the cluster tests share
 * ({@code AppendLoad}). Waits with deadlines are {@link dev.parallax.core.testkit.Await}.
 */
package dev.parallax.core.testkit.cluster;
