/**
 * Helpers for in-process cluster tests over real replicas, sockets and threads, whatever the
 * ordering protocol: a text key-value state machine ({@code TextKv}) and waits with deadlines
 * ({@code Await}), the append workload the cluster tests share ({@code AppendLoad}).
 */
package dev.parallax.core.testkit.cluster;
