package dev.parallax.paxos.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.multicast.StreamOrdering;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.spi.AtomicMulticast;
import dev.parallax.core.spi.MulticastListener;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Subscription;
import dev.parallax.core.stage.ThreadPlacement;
import dev.parallax.core.testkit.AtomicMulticastContract;
import dev.parallax.core.testkit.cluster.PortContext;
import dev.parallax.paxos.PaxosConfig;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The reference multicast built the way a replica builds it ({@link StreamOrdering#multicast} of a {@link PaxosStreamPlan}): every
 * stream's Multi-Paxos core and the forwards on named channels of one real replica port per
 * process (loopback TCP), named logs, the pipeline stages on one compact thread. Several protocol
 * cores per process over one port pass the whole multicast contract.
 */
class ReplicaMulticastContractTest extends AtomicMulticastContract {

    @Override
    protected List<AtomicMulticast> createCluster(int processes, GroupSet groups) {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(processes));
        PaxosConfig config = PaxosConfig.builder(processes).heartbeat(Duration.ofMillis(20)).suspect(Duration.ofMillis(400))
                .retransmit(Duration.ofMillis(50)).catchUp(Duration.ofMillis(30)).build();
        List<AtomicMulticast> cluster = new ArrayList<>();
        for (int p = 0; p < processes; p++) {
            PortContext context = new PortContext(members, p, ThreadPlacement.COMPACT);
            cluster.add(new ClosingContext(StreamOrdering.of(new PaxosStreamPlan(config, groups)).multicast(context), context));
        }
        return cluster;
    }

    /** The multicast, and on close the process's port and threads after it. */
    private record ClosingContext(AtomicMulticast inner, PortContext context) implements AtomicMulticast {
        @Override
        public GroupSet groups() {
            return inner.groups();
        }

        @Override
        public Subscription subscribe(GroupSet groups, MulticastPosition from, MulticastListener listener) {
            return inner.subscribe(groups, from, listener);
        }

        @Override
        public boolean multicast(GroupSet groups, ByteBuffer message) {
            return inner.multicast(groups, message);
        }

        @Override
        public void close() {
            inner.close();
            context.close();
        }
    }
}
