package dev.parallax.paxos.spaxos;

import dev.parallax.paxos.PaxosConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SPaxosConfigTest {

    @Test
    @DisplayName("documented defaults (seed 002 (S-Paxos) §IV-C Δ and η)")
    void defaults() {
        SPaxosConfig c = SPaxosConfig.builder(3).build();
        assertThat(c.members()).isEqualTo(3);
        assertThat(c.f()).isEqualTo(1);
        assertThat(c.stableHolders()).isEqualTo(2);
        assertThat(c.paxos().members()).isEqualTo(3);
        assertThat(c.batchBytes()).isEqualTo(1300);
        assertThat(c.batchTimeoutNanos()).isEqualTo(Duration.ofMillis(1).toNanos());
        assertThat(c.eagerBelow()).isEqualTo(2);
        assertThat(c.idsPerValue()).isEqualTo(64);
        assertThat(c.ackIntervalNanos()).isEqualTo(Duration.ofMillis(1).toNanos());
        assertThat(c.ackRefreshNanos()).isEqualTo(Duration.ofMillis(100).toNanos());
        assertThat(c.resendDelayNanos()).isEqualTo(Duration.ofMillis(50).toNanos());
        assertThat(c.maxUndecidedPerOrigin()).isEqualTo(128);
        assertThat(c.resendMaxBytes()).isEqualTo(1 << 20);
        assertThat(SPaxosConfig.builder(5).build().stableHolders()).isEqualTo(3);
        assertThat(SPaxosConfig.builder(4).build().stableHolders()).isEqualTo(2);
        assertThat(c.toString()).contains("spaxos.resend.delay.ms=50");
    }

    @Test
    @DisplayName("every setter is kept")
    void setters() {
        PaxosConfig p = PaxosConfig.builder(5).window(20).build();
        SPaxosConfig c = SPaxosConfig.builder(5).paxos(p).batchBytes(4096).batchTimeout(Duration.ZERO).eagerBelow(1)
                .idsPerValue(8).ackInterval(Duration.ofMillis(3)).ackRefresh(Duration.ofMillis(3))
                .resendDelay(Duration.ofMillis(7)).maxUndecidedPerOrigin(1024).resendMaxBytes(10).build();
        assertThat(c.paxos()).isSameAs(p);
        assertThat(c.batchBytes()).isEqualTo(4096);
        assertThat(c.batchTimeoutNanos()).isZero();
        assertThat(c.eagerBelow()).isEqualTo(1);
        assertThat(c.idsPerValue()).isEqualTo(8);
        assertThat(c.ackIntervalNanos()).isEqualTo(c.ackRefreshNanos()).isEqualTo(3_000_000);
        assertThat(c.resendDelayNanos()).isEqualTo(7_000_000);
        assertThat(c.maxUndecidedPerOrigin()).isEqualTo(1024);
        assertThat(c.resendMaxBytes()).isEqualTo(10);
    }

    @Test
    @DisplayName("validation: members match, ackInterval <= ackRefresh, resendDelay > 0, B <= 1024")
    void validation() {
        assertThatThrownBy(() -> SPaxosConfig.builder(3).paxos(PaxosConfig.builder(5).build()).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("members");
        assertThatThrownBy(() -> SPaxosConfig.builder(3).ackInterval(Duration.ofMillis(200)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spaxos.ack.interval.ms");
        assertThatThrownBy(() -> SPaxosConfig.builder(3).resendDelay(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spaxos.resend.delay.ms");
        assertThatThrownBy(() -> SPaxosConfig.builder(3).maxUndecidedPerOrigin(1025))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1024");
        assertThatThrownBy(() -> SPaxosConfig.builder(3).maxUndecidedPerOrigin(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SPaxosConfig.builder(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SPaxosConfig.builder(3).batchBytes(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SPaxosConfig.builder(3).idsPerValue(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SPaxosConfig.builder(3).batchTimeout(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
    }
}
