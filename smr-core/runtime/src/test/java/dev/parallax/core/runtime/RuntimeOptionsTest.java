package dev.parallax.core.runtime;

import dev.parallax.core.protocol.ProtocolStage;
import dev.parallax.core.spi.SnapshotRequester;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.stage.ThreadPlacement;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RuntimeOptionsTest {

    @Test
    @DisplayName("defaults: the protocol's name, inbox 8192, proposals 20 (seed 000 §V-E), decisions 1024, maxUndelivered 4096, no snapshots, own threads")
    void defaults() {
        RuntimeOptions o = RuntimeOptions.builder().build();
        assertThat(o.name("paxos")).isEqualTo("paxos");
        assertThat(o.name("spaxos")).isEqualTo("spaxos");
        assertThat(o.inboxCapacity()).isEqualTo(8192);
        assertThat(o.proposalCapacity()).isEqualTo(20);
        assertThat(o.decisionCapacity()).isEqualTo(1024);
        assertThat(o.maxUndelivered()).isEqualTo(ProtocolStage.DEFAULT_MAX_UNDELIVERED);
        assertThat(o.snapshotRequester()).isSameAs(SnapshotRequester.NONE);
        assertThat(o.threads()).isNull();
        assertThat(o.meterRegistry()).isNotNull();
        assertThat(RuntimeOptions.builder().build().meterRegistry()).isNotSameAs(o.meterRegistry());
    }

    @Test
    @DisplayName("a set name wins over the protocol's default; toBuilder keeps every setting")
    void nameAndToBuilder() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (StageThreads threads = StageThreads.builder(ThreadPlacement.STAGED).build()) {
            RuntimeOptions o = RuntimeOptions.builder().name("mcast-1").meterRegistry(registry).threads(threads)
                    .inboxCapacity(32).proposalCapacity(3).decisionCapacity(8).maxUndelivered(16).build();
            RuntimeOptions copy = o.toBuilder().build();
            assertThat(copy.name("paxos")).isEqualTo("mcast-1");
            assertThat(copy.meterRegistry()).isSameAs(registry);
            assertThat(copy.threads()).isSameAs(threads);
            assertThat(copy.inboxCapacity()).isEqualTo(32);
            assertThat(copy.proposalCapacity()).isEqualTo(3);
            assertThat(copy.decisionCapacity()).isEqualTo(8);
            assertThat(copy.maxUndelivered()).isEqualTo(16);
            assertThat(o.toBuilder().maxUndelivered(5).build().maxUndelivered()).isEqualTo(5);
            assertThat(o.maxUndelivered()).isEqualTo(16);
        }
    }

    @Test
    @DisplayName("bad settings are refused at once, naming the setting")
    void refusesBadSettings() {
        assertThatThrownBy(() -> RuntimeOptions.builder().inboxCapacity(0)).hasMessageContaining("inboxCapacity");
        assertThatThrownBy(() -> RuntimeOptions.builder().proposalCapacity(-1)).hasMessageContaining("proposalCapacity");
        assertThatThrownBy(() -> RuntimeOptions.builder().decisionCapacity(0)).hasMessageContaining("decisionCapacity");
        assertThatThrownBy(() -> RuntimeOptions.builder().maxUndelivered(0)).hasMessageContaining("maxUndelivered");
        assertThatThrownBy(() -> RuntimeOptions.builder().name("Bad Name")).isInstanceOf(IllegalArgumentException.class);
    }
}
