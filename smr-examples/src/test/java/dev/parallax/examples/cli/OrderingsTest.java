package dev.parallax.examples.cli;

import dev.parallax.core.GroupSet;
import dev.parallax.core.multicast.StreamOrdering;
import dev.parallax.core.runtime.DatagramGroupConfig;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.paxos.MultiPaxos;
import dev.parallax.paxos.multicast.MulticastOrdering;
import dev.parallax.paxos.multicast.PaxosStreamPlan;
import dev.parallax.paxos.spaxos.SPaxos;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.RingPaxos;
import dev.parallax.ringpaxos.multiring.MultiRingConfig;
import dev.parallax.ringpaxos.multiring.MultiRingPlan;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The ordering registry: names, parsing, and the protocol each name builds from a cluster file. */
class OrderingsTest {
    private static ClusterFile file(Map<String, String> settings) {
        Properties p = new Properties();
        p.setProperty("members", "0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002");
        p.putAll(settings);
        return ClusterFile.of(p);
    }

    @Test
    void namesParseIgnoringCaseAndUnknownNamesAreRejectedWithTheAcceptedOnes() {
        assertThat(Orderings.names()).containsExactly("multi-paxos", "s-paxos", "u-ring", "m-ring", "multi-ring", "multicast");
        assertThat(Orderings.DEFAULT).isEqualTo(Orderings.MULTI_PAXOS);
        assertThat(Orderings.parse("MULTI-PAXOS")).isEqualTo(Orderings.MULTI_PAXOS);
        assertThat(Orderings.parse(" S-Paxos ")).isEqualTo(Orderings.S_PAXOS);
        assertThat(Orderings.parse(" U-Ring")).isEqualTo(Orderings.U_RING);
        assertThat(Orderings.parse("Multi-Ring")).isEqualTo(Orderings.MULTI_RING);
        assertThat(Orderings.parse(" MultiCast ")).isEqualTo(Orderings.MULTICAST);
        assertThatThrownBy(() -> Orderings.parse("multi-rings")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ordering must be one of multi-paxos, s-paxos, u-ring, m-ring, multi-ring, multicast; got 'multi-rings'");
    }

    @Test
    @DisplayName("seed 002 (S-Paxos): ordering=s-paxos builds S-Paxos from the spaxos.* keys, its client batches the "
            + "dissemination layer's")
    void sPaxosIsBuiltFromTheSPaxosKeys() {
        ClusterFile f = file(Map.of("ordering", "s-paxos", "spaxos.batch.bytes", "16384", "spaxos.batch.timeout.ms", "3",
                "spaxos.eager.below", "1", "paxos.batch.bytes", "999", "paxos.window", "20"));
        assertThat(f.ordering()).isEqualTo(Orderings.S_PAXOS);
        OrderingProtocol p = f.orderingProtocol();
        assertThat(p).isInstanceOf(SPaxos.class);
        assertThat(p.name()).isEqualTo("s-paxos");
        assertThat(p.batchBytes()).isEqualTo(16384);
        assertThat(p.batchTimeoutNanos()).isEqualTo(3_000_000L);
        SPaxos s = (SPaxos) p;
        assertThat(s.config().eagerBelow()).isEqualTo(1);
        assertThat(s.config().paxos().window()).isEqualTo(20);
        assertThat(f.describeRuntime(2)).startsWith("ordering s-paxos, execution sequential");
    }

    @Test
    void multiPaxosIsBuiltFromThePaxosKeysAndIgnoresTheSPaxosOnes() {
        ClusterFile f = file(Map.of("paxos.batch.bytes", "4000", "spaxos.batch.bytes", "16384"));
        OrderingProtocol p = f.orderingProtocol();
        assertThat(p).isInstanceOf(MultiPaxos.class);
        assertThat(p.batchBytes()).isEqualTo(4000);
    }

    @Test
    void aBadSPaxosKeyFailsAtLoadNamingTheKeyWhateverTheOrdering() {
        assertThatThrownBy(() -> file(Map.of("ordering", "s-paxos", "spaxos.ids.per.value", "0")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spaxos.ids.per.value");
        assertThatThrownBy(() -> file(Map.of("spaxos.max.undecided", "2048")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spaxos.max.undecided");
    }

    @Test
    @DisplayName("seed 003 (Ring Paxos) §3.3.3, Alg. 3: ordering=u-ring builds U-Ring from the ring.* keys, its batches ring.batch.bytes")
    void uRingIsBuiltFromTheRingKeys() {
        ClusterFile f = file(Map.of("ordering", "u-ring", "ring.batch.bytes", "4000", "ring.batch.timeout.ms", "2",
                "ring.window", "16", "paxos.batch.bytes", "999"));
        assertThat(f.ordering()).isEqualTo(Orderings.U_RING);
        OrderingProtocol p = f.orderingProtocol();
        assertThat(p).isInstanceOf(RingPaxos.class);
        assertThat(p.name()).isEqualTo("u-ring");
        assertThat(p.batchBytes()).isEqualTo(4000);
        assertThat(p.batchTimeoutNanos()).isEqualTo(2_000_000L);
        RingConfig c = ((RingPaxos) p).config();
        assertThat(c.kind()).isEqualTo(Ring.Kind.U_RING);
        assertThat(c.window()).isEqualTo(16);
        assertThat(f.describeRuntime(2)).startsWith("ordering u-ring, execution sequential");
    }

    @Test
    @DisplayName("seed 003 (Ring Paxos) §3.3.2, Alg. 2: ordering=m-ring builds M-Ring whose datagram group comes from the mring.* keys")
    void mRingIsBuiltFromTheRingAndMRingKeys() {
        ClusterFile f = file(Map.of("ordering", "m-ring", "mring.group", "239.255.3.4", "mring.port", "7555",
                "mring.packet.bytes", "4096", "mring.test.faults", "drop=0.01,dup=0.01,reorder=4"));
        OrderingProtocol p = f.orderingProtocol();
        assertThat(p.name()).isEqualTo("m-ring");
        assertThat(p.batchBytes()).isEqualTo(8000);
        RingConfig c = ((RingPaxos) p).config();
        assertThat(c.kind()).isEqualTo(Ring.Kind.M_RING);
        DatagramGroupConfig g = RingPaxos.datagramGroup(c);
        assertThat(g.group()).isEqualTo("239.255.3.4");
        assertThat(g.port()).isEqualTo(7555);
        assertThat(g.packetBytes()).isEqualTo(4096);
        assertThat(g.faults().drop()).isEqualTo(0.01);
        assertThat(g.faults().reorderWindow()).isEqualTo(4);
    }

    @Test
    @DisplayName("seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5: ordering=multi-ring builds Multi-Ring from the multiring.*, ring.* "
            + "and mring.* keys, ring i multicasting on mring.port + i")
    void multiRingIsBuiltFromTheMultiRingAndRingKeys() {
        ClusterFile f = file(Map.of("ordering", "multi-ring", "multiring.rings", "3", "multiring.m", "2", "ring.lambda", "8000",
                "mring.group", "239.255.3.4", "mring.port", "7555", "ring.batch.bytes", "4000"));
        OrderingProtocol p = f.orderingProtocol();
        assertThat(p).isInstanceOf(StreamOrdering.class);
        assertThat(((StreamOrdering<?>) p).plan()).isInstanceOf(MultiRingPlan.class);
        assertThat(p.name()).isEqualTo("multi-ring");
        assertThat(p.batchBytes()).isEqualTo(4000);
        MultiRingConfig c = ((MultiRingPlan) ((StreamOrdering<?>) p).plan()).config();
        assertThat(c.rings()).isEqualTo(3);
        assertThat(c.roundLength()).isEqualTo(2);
        assertThat(c.lambda()).isEqualTo(8000L);
        for (int i = 0; i <= 3; i++) {
            DatagramGroupConfig g = RingPaxos.datagramGroup(c.ring(i));
            assertThat(g.group()).isEqualTo("239.255.3.4");
            assertThat(g.port()).as("ring %d", i).isEqualTo(7555 + i);
        }
        assertThat(KvRouting.router(f)).hasValueSatisfying(r -> assertThat(r.groups()).isEqualTo(3));
        assertThat(KvRouting.router(file(Map.of("ordering", "m-ring")))).as("one group: no router").isEmpty();
    }

    @Test
    @DisplayName("seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5: ordering=multicast builds the reference multicast over "
            + "multicast.groups groups, every stream configured by paxos.*, and clients route by key over its groups")
    void multicastIsBuiltFromTheMulticastAndPaxosKeys() {
        ClusterFile f = file(Map.of("ordering", "multicast", "multicast.groups", "3", "paxos.batch.bytes", "4000",
                "paxos.batch.timeout.ms", "2", "ring.batch.bytes", "999"));
        assertThat(f.ordering()).isEqualTo(Orderings.MULTICAST);
        OrderingProtocol p = f.orderingProtocol();
        assertThat(p).isInstanceOf(StreamOrdering.class);
        assertThat(((StreamOrdering<?>) p).plan()).isInstanceOf(PaxosStreamPlan.class);
        assertThat(p.name()).isEqualTo("multicast").isEqualTo(MulticastOrdering.NAME);
        assertThat(p.batchBytes()).as("paxos.batch.bytes, every stream's").isEqualTo(4000);
        assertThat(p.batchTimeoutNanos()).isEqualTo(2_000_000L);
        assertThat(((PaxosStreamPlan) ((StreamOrdering<?>) p).plan()).groups()).isEqualTo(GroupSet.partition(3));
        assertThat(f.routesByKey()).isTrue();
        assertThat(f.orderingGroups()).isEqualTo(3);
        assertThat(KvRouting.router(f)).hasValueSatisfying(r -> assertThat(r.groups()).isEqualTo(3));
        assertThat(((PaxosStreamPlan) ((StreamOrdering<?>) file(Map.of("ordering", "multicast")).orderingProtocol()).plan())
                .groups().size()).as("default multicast.groups").isEqualTo(ClusterFile.DEFAULT_MULTICAST_GROUPS);
        assertThat(f.describeRuntime(2)).startsWith("ordering multicast, execution sequential");
    }

    @Test
    void aRingOrderingTakesAnEvenClusterAndABadRingKeyIsNamed() {
        Properties even = new Properties();
        even.setProperty("members", "0=127.0.0.1:7000,1=127.0.0.1:7001");
        even.setProperty("ordering", "u-ring");
        // Ring Paxos quorums are majorities (n/2 + 1), so an even cluster is a valid ring.
        assertThat(ClusterFile.of(even).ring(Ring.Kind.U_RING).quorum()).isEqualTo(2);
        assertThatThrownBy(() -> file(Map.of("ordering", "m-ring", "mring.group", "10.0.0.1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("mring");
        assertThatThrownBy(() -> file(Map.of("ring.window", "0")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ring.window");
    }
}
