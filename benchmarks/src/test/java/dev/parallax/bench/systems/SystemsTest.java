package dev.parallax.bench.systems;

import dev.parallax.examples.cli.Orderings;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The systems {@code ./parallax bench} knows; the S-Paxos ones (issue 13) run S-Paxos whatever {@code --ordering} says. */
class SystemsTest {

    @Test
    void theSPaxosSystemsAreListedNextToMultiPaxosOnesAndEachCreatesItsNamesake() {
        assertThat(Systems.all()).extracting(Systems.Entry::name).containsSubsequence("parallax-none", "parallax-every-batch",
                "parallax-memory", "parallax-spaxos-none", "parallax-spaxos-every-batch", "ratis");
        for (Systems.Entry e : Systems.all()) {
            assertThat(Systems.create(e.name()).name()).isEqualTo(e.name());
        }
    }

    @Test
    @DisplayName("seed 002 (S-Paxos): a system's fixed ordering wins over --ordering, with natural batching for both layers")
    void aFixedOrderingWinsOverTheRuntimeSettingAndItsThroughputSettingsAreRecorded() {
        ParallaxSystem spaxos = (ParallaxSystem) Systems.create("parallax-spaxos-every-batch");
        spaxos.runtime(Map.of(Orderings.KEY, "multi-paxos", "threads", "staged"));
        assertThat(spaxos.settings()).containsEntry("ordering", "s-paxos").containsEntry("threads", "staged")
                .containsEntry("log.sync", "every-batch").containsEntry("spaxos.batch.bytes", "16384")
                .containsEntry("spaxos.eager.below", "1").containsEntry("paxos.eager.below", "1");
        ParallaxSystem plain = (ParallaxSystem) Systems.create("parallax-none");
        assertThat(plain.settings()).containsEntry("ordering", "multi-paxos");
        assertThat(plain.runtime(Map.of(Orderings.KEY, "s-paxos")).settings()).containsEntry("ordering", "s-paxos");
        assertThat(new ParallaxSystem("memory", Orderings.S_PAXOS).tls(true).name()).isEqualTo("parallax-spaxos-memory-tls");
    }

    @Test
    void unknownSystemsAreRejectedNamingTheKnownOnes() {
        assertThatThrownBy(() -> Systems.create("parallax-spaxos")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("parallax-spaxos-none").hasMessageContaining("parallax-spaxos-every-batch");
    }
}
