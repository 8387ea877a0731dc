package dev.parallax.paxos.replica;

import dev.parallax.core.StateMachine;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.testkit.cluster.LocalCluster;
import dev.parallax.paxos.MultiPaxos;
import dev.parallax.paxos.PaxosConfig;
import dev.parallax.paxos.spaxos.SPaxos;
import dev.parallax.paxos.spaxos.SPaxosConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * The Paxos orderings of the in-process {@link LocalCluster} tests: Multi-Paxos ({@link #of}) or
 * S-Paxos ({@link #sPaxos}) with the shared test timeouts, and the Paxos names of the cluster's
 * leader gauge and view counter. Stateless; the clusters it builds follow {@link LocalCluster}'s contract.
 */
final class PaxosClusters {
    private PaxosClusters() {
    }

    /** The test timeouts every ordering shares: heartbeat 30 ms, suspect 300 ms, retransmit 100 ms, catch-up 50 ms. */
    static PaxosConfig paxosConfig(int n) {
        return PaxosConfig.builder(n).heartbeat(Duration.ofMillis(30)).suspect(Duration.ofMillis(300))
                .retransmit(Duration.ofMillis(100)).catchUp(Duration.ofMillis(50)).build();
    }

    /** Multi-Paxos with {@link #paxosConfig}. */
    static OrderingProtocol multiPaxos(int n) {
        return MultiPaxos.protocol(paxosConfig(n));
    }

    /** S-Paxos (seed 002) ordering ids with {@link #paxosConfig}, dissemination defaults. */
    static OrderingProtocol sPaxos(int n) {
        return SPaxos.protocol(SPaxosConfig.builder(n).paxos(paxosConfig(n)).build());
    }

    /** n Multi-Paxos replicas. */
    static LocalCluster of(int n) {
        return new LocalCluster(n, PaxosClusters::multiPaxos);
    }

    /** n Multi-Paxos replicas whose state machines are wrapped by {@code wrap}, frames capped at {@code maxFrame}. */
    static LocalCluster of(int n, UnaryOperator<StateMachine> wrap, int maxFrame) {
        return new LocalCluster(n, PaxosClusters::multiPaxos, wrap, maxFrame);
    }

    /** As {@link #of(int, UnaryOperator, int)}, keeping data (snapshots every {@code snapshotEvery}) in {@code dataDir}. */
    static LocalCluster of(int n, UnaryOperator<StateMachine> wrap, int maxFrame, Path dataDir, long snapshotEvery) {
        return new LocalCluster(n, PaxosClusters::multiPaxos, wrap, maxFrame, dataDir, snapshotEvery);
    }

    /** The replica that leads its view now (its {@code parallax.paxos.leader} gauge is 1), or -1. */
    static int leader(LocalCluster cluster) {
        return cluster.leader("parallax.paxos.leader");
    }

    /** Views replica {@code id} started (Phase 1 runs), as its protocol stage last published. */
    static double viewsStarted(LocalCluster cluster, int id) {
        return cluster.protocolEvents(id, "views.started");
    }
}
