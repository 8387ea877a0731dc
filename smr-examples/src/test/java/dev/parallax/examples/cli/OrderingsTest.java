package dev.parallax.examples.cli;

import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.paxos.MultiPaxos;
import dev.parallax.paxos.spaxos.SPaxos;
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
        assertThat(Orderings.names()).containsExactly("multi-paxos", "s-paxos");
        assertThat(Orderings.DEFAULT).isEqualTo(Orderings.MULTI_PAXOS);
        assertThat(Orderings.parse("MULTI-PAXOS")).isEqualTo(Orderings.MULTI_PAXOS);
        assertThat(Orderings.parse(" S-Paxos ")).isEqualTo(Orderings.S_PAXOS);
        assertThatThrownBy(() -> Orderings.parse("u-ring")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ordering must be one of multi-paxos, s-paxos; got 'u-ring'");
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
}
