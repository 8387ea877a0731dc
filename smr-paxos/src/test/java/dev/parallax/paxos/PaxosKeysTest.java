package dev.parallax.paxos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parallax.core.config.Settings;
import dev.parallax.core.runtime.ClusterConfig;
import dev.parallax.core.runtime.OrderingProvider;
import dev.parallax.core.runtime.OrderingRegistry;
import dev.parallax.paxos.multicast.MulticastProvider;
import dev.parallax.paxos.spaxos.SPaxosConfig;
import dev.parallax.paxos.spaxos.SPaxosKeys;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The Paxos family's keys: declared once, read from a cluster file into the same configuration the builders make. */
class PaxosKeysTest {

    @Test
    @DisplayName("paxos.* read from settings equal the builder's configuration; absent keys are the builder's defaults")
    void paxosKeysReadIntoTheConfiguration() {
        PaxosConfig read = PaxosKeys.config(Settings.of(Map.of("paxos.window", "35", "paxos.heartbeat.ms", "20",
                "paxos.suspect.ms", "400", "paxos.eager.below", "1")), 3);
        PaxosConfig built = PaxosConfig.builder(3).window(35).heartbeat(Duration.ofMillis(20)).suspect(Duration.ofMillis(400))
                .eagerBelow(1).build();
        assertThat(read.toString()).isEqualTo(built.toString());
        PaxosConfig defaults = PaxosKeys.config(Settings.of(Map.of()), 3);
        assertThat(defaults.window()).isEqualTo(PaxosConfig.DEFAULT_WINDOW);
        assertThat(defaults.eagerBelow()).as("default: WND").isEqualTo(PaxosConfig.DEFAULT_WINDOW);
        assertThat(defaults.batchBytes()).isEqualTo(PaxosConfig.DEFAULT_BATCH_BYTES);
        assertThat(defaults.suspectNanos()).isEqualTo(Duration.ofMillis(500).toNanos());
        assertThat(defaults.restartHoldNanos()).isEqualTo(Duration.ofSeconds(2).toNanos());
    }

    @Test
    @DisplayName("the catch-up budget is checked against the file's max.frame.bytes, not the default frame")
    void catchUpBudgetFollowsTheConfiguredFrame() {
        assertThatThrownBy(() -> PaxosKeys.config(Settings.of(Map.of("max.frame.bytes", "1048576")), 3))
                .as("the default budget (1 MiB) no longer fits a 1 MiB frame")
                .hasMessage("configuration: paxos.catchup.max.bytes (1048576) must be at most half of max.frame.bytes (1048576)");
        PaxosConfig larger = PaxosKeys.config(Settings.of(Map.of("max.frame.bytes", "67108864",
                "paxos.catchup.max.bytes", "33554432")), 3);
        assertThat(larger.catchUpMaxBytes()).isEqualTo(33554432);
    }

    @Test
    @DisplayName("a bad value, a cross-key conflict and the frame rule name the key")
    void refusalsNameTheKey() {
        assertThatThrownBy(() -> PaxosKeys.config(Settings.of(Map.of("paxos.window", "0")), 3))
                .hasMessage("configuration: paxos.window must be > 0, got 0");
        assertThatThrownBy(() -> PaxosKeys.config(Settings.of(Map.of("paxos.heartbeat.ms", "300")), 3))
                .hasMessageContaining("paxos.suspect.ms (500 ms) must be at least twice the heartbeat, paxos.heartbeat.ms (300 ms)");
        assertThatThrownBy(() -> PaxosKeys.config(Settings.of(Map.of("paxos.catchup.max.bytes", "16777216")), 3))
                .hasMessage("configuration: paxos.catchup.max.bytes (16777216) must be at most half of max.frame.bytes (16777216)");
        assertThatThrownBy(() -> PaxosConfig.builder(3).batchBytes(-1)).hasMessage("paxos.batch.bytes must be > 0, got -1");
        assertThatThrownBy(() -> SPaxosKeys.config(Settings.of(Map.of("spaxos.ack.interval.ms", "200")), 3))
                .hasMessageContaining("spaxos.ack.interval.ms must not exceed spaxos.ack.refresh.ms");
    }

    @Test
    @DisplayName("spaxos.* read from settings, with paxos.* for the ordering layer")
    void spaxosKeys() {
        SPaxosConfig c = SPaxosKeys.config(Settings.of(Map.of("spaxos.ids.per.value", "16", "paxos.window", "7")), 5);
        assertThat(c.idsPerValue()).isEqualTo(16);
        assertThat(c.paxos().window()).isEqualTo(7);
        assertThat(c.maxUndecidedPerOrigin()).isEqualTo(SPaxosConfig.DEFAULT_MAX_UNDECIDED);
        assertThatThrownBy(() -> SPaxosConfig.builder(3).maxUndecidedPerOrigin(SPaxosConfig.MAX_UNDECIDED_LIMIT + 1))
                .hasMessageContaining("spaxos.max.undecided must be 1..1024");
    }

    @Test
    @DisplayName("the three providers are registered with their tables; the reference multicast orders by multicast.groups")
    void providersAreRegistered() {
        assertThat(OrderingRegistry.orderings()).containsKeys("multi-paxos", "s-paxos", "multicast");
        OrderingProvider multicast = OrderingRegistry.ordering("multicast");
        assertThat(multicast.groupsKey()).contains("multicast.groups");
        Settings s = Settings.of(Map.of("multicast.groups", "3"));
        assertThat(multicast.groups(new OrderingProvider.Context(s, 3, false))).isEqualTo(3);
        assertThat(OrderingRegistry.ordering("multi-paxos").groups(new OrderingProvider.Context(s, 3, false))).isEqualTo(1);
        assertThatThrownBy(() -> MulticastProvider.GROUPS.parse("17"))
                .hasMessage("multicast.groups must be 1..16 (groups of ordering=multicast), got 17");
        assertThat(OrderingRegistry.ordering("s-paxos").create(new OrderingProvider.Context(Settings.of(Map.of()), 3, false)).name())
                .isEqualTo("s-paxos");
    }

    @Test
    @DisplayName("ClusterConfig: a typo names the nearest key; the named protocol is built from its keys")
    void clusterConfig() {
        String members = "0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002";
        assertThatThrownBy(() -> ClusterConfig.of(Map.of("members", members, "spaxos.ids.per.valu", "3")))
                .hasMessageContaining("unknown key 'spaxos.ids.per.valu' (did you mean spaxos.ids.per.value?)");
        assertThatThrownBy(() -> ClusterConfig.of(Map.of("members", members, "ordering", "raft")))
                .hasMessageContaining("ordering must be one of").hasMessageContaining("multi-paxos");
        ClusterConfig c = ClusterConfig.of(Map.of("members", members, "ordering", "s-paxos", "paxos.window", "12"));
        assertThat(c.ordering().name()).isEqualTo("s-paxos");
        assertThat(c.orderingProtocol().name()).isEqualTo("s-paxos");
        assertThat(c.replica(2).id()).isEqualTo(2);
        assertThat(c.clientEndpoints().size()).isEqualTo(3);
        assertThatThrownBy(() -> c.replica(3)).hasMessageContaining("replica 3 is not a member");
    }
}
