package dev.parallax.core.client;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.Member;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link ClientConfig}'s defaults and validation. */
class ClientConfigTest {
    private static final ClusterMembers THREE = ClusterMembers.of(
            new Member(0, "127.0.0.1", 7000), new Member(1, "127.0.0.1", 7001), new Member(2, "127.0.0.1", 7002));

    @Test
    void startAtDefaultsToTheFirstEndpoint() {
        assertThat(ClientConfig.builder(THREE).build().startAt()).isZero();
    }

    @Test
    void startAtNamesAnyEndpointByIndex() {
        for (int i = 0; i < 3; i++) {
            assertThat(ClientConfig.builder(THREE).startAt(i).build().startAt()).isEqualTo(i);
        }
    }

    @Test
    void startAtOutsideTheEndpointsIsRefusedNamingTheRange() {
        assertThatThrownBy(() -> ClientConfig.builder(THREE).startAt(3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("startAt must be in [0, 3)");
        assertThatThrownBy(() -> ClientConfig.builder(THREE).startAt(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got -1");
    }
}
