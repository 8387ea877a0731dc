package dev.parallax.ringpaxos;

import dev.parallax.core.config.KeyTable;
import dev.parallax.core.config.Settings;
import dev.parallax.core.runtime.ClusterConfig;
import dev.parallax.core.runtime.OrderingProvider;
import dev.parallax.core.runtime.OrderingRegistry;
import dev.parallax.core.multicast.StreamOrdering;
import dev.parallax.ringpaxos.multiring.MultiRingConfig;
import dev.parallax.ringpaxos.multiring.MultiRingPlan;
import dev.parallax.ringpaxos.multiring.MultiRingKeys;
import dev.parallax.ringpaxos.multiring.MultiRingProvider;
import dev.parallax.ringpaxos.multiring.MultiRingTopology;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RingProvidersTest {

    private static final String THREE = "0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002";

    private static OrderingProvider.Context context(int members, boolean partitioned, String... keyValues) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return new OrderingProvider.Context(Settings.of(m), members, partitioned);
    }

    @Test
    @DisplayName("u-ring, m-ring and multi-ring are found through the registry with their key tables and groups")
    void registered() {
        Map<String, OrderingProvider> all = OrderingRegistry.orderings();
        assertThat(all.get("u-ring")).isInstanceOf(URingProvider.class);
        assertThat(all.get("m-ring")).isInstanceOf(MRingProvider.class);
        assertThat(all.get("multi-ring")).isInstanceOf(MultiRingProvider.class);
        assertThat(OrderingRegistry.ordering(" M-Ring ")).isInstanceOf(MRingProvider.class);
        assertThat(all.get("u-ring").keyTables()).extracting(KeyTable::name).containsExactly("Ring Paxos");
        assertThat(all.get("m-ring").keyTables()).extracting(KeyTable::name).containsExactly("Ring Paxos");
        assertThat(all.get("multi-ring").keyTables()).extracting(KeyTable::name).containsExactly("Ring Paxos", "Multi-Ring Paxos");
        assertThat(OrderingRegistry.keyTables()).extracting(KeyTable::name).contains("Ring Paxos", "Multi-Ring Paxos")
                .doesNotHaveDuplicates();
        for (String name : new String[] {"u-ring", "m-ring", "multi-ring"}) {
            assertThat(all.get(name).name()).isEqualTo(name);
            assertThat(all.get(name).summary()).as(name).contains("seed 003 (Ring Paxos").endsWith(".");
        }
        assertThat(all.get("u-ring").groupsKey()).isEmpty();
        assertThat(all.get("u-ring").groups(context(3, false))).isEqualTo(1);
        assertThat(all.get("multi-ring").groupsKey()).isEqualTo(Optional.of("multiring.rings"));
        assertThat(all.get("multi-ring").groups(context(3, false))).isEqualTo(2);
        assertThat(all.get("multi-ring").groups(context(3, false, "multiring.rings", "5"))).isEqualTo(5);
    }

    @Test
    @DisplayName("each provider builds its protocol from the cluster file; multi-ring lays partitions out when partitioned")
    void create() {
        assertThat(new URingProvider().create(context(3, false, "ring.window", "8")))
                .isInstanceOfSatisfying(RingPaxos.class, p -> {
                    assertThat(p.name()).isEqualTo("u-ring");
                    assertThat(p.config().kind()).isEqualTo(Ring.Kind.U_RING);
                    assertThat(p.config().window()).isEqualTo(8);
                });
        assertThat(new MRingProvider().create(context(5, false, "mring.port", "7500")))
                .isInstanceOfSatisfying(RingPaxos.class, p -> {
                    assertThat(p.name()).isEqualTo("m-ring");
                    assertThat(p.config().members()).isEqualTo(5);
                    assertThat(p.config().mringPort()).isEqualTo(7500);
                });
        assertThat(new MultiRingProvider().create(context(6, true, "multiring.kind", "u-ring")))
                .isInstanceOfSatisfying(StreamOrdering.class, p -> {
                    assertThat(p.name()).isEqualTo("multi-ring");
                    assertThat(config(p).topology().members(1)).containsExactly(3, 4, 5);
                    assertThat(config(p).topology().members(MultiRingTopology.GLOBAL)).hasSize(6);
                });
        assertThat(config(new MultiRingProvider().create(context(6, false))).topology().members(1)).hasSize(6);
    }

    @Test
    @DisplayName("the generic cluster-file reader knows the ring keys and names the nearest one for a typo")
    void clusterConfigKnowsTheRingKeys() {
        assertThatThrownBy(() -> ClusterConfig.of(Map.of("members", THREE, "ordering", "m-ring", "ring.windw", "3")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'ring.windw'").hasMessageContaining("did you mean ring.window");
        ClusterConfig c = ClusterConfig.of(Map.of("members", THREE, "ordering", "multi-ring", "ring.window", "16",
                "multiring.rings", "3", "multiring.ring.1.kind", "u-ring", MultiRingKeys.M.name(), "2"));
        assertThat(c.ordering()).isInstanceOf(MultiRingProvider.class);
        assertThat(c.ordering().groups(c.orderingContext(false))).isEqualTo(3);
        assertThat(config(c.orderingProtocol()).ring(1).kind()).isEqualTo(Ring.Kind.U_RING);
    }

    /** The Multi-Ring configuration a multi-ring protocol (a {@link StreamOrdering} over a {@link MultiRingPlan}) runs. */
    private static MultiRingConfig config(dev.parallax.core.runtime.OrderingProtocol p) {
        return ((MultiRingPlan) ((StreamOrdering<?>) p).plan()).config();
    }
}
