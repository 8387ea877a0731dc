package dev.parallax.examples.net;

import dev.parallax.examples.kv.RespServerConfig;
import dev.parallax.examples.volery.zk.ZkServerConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link ListenerSettings}: the bounds both front ends' configurations refuse, each named. */
class ListenerSettingsTest {
    @Test
    void portIoThreadsAndPendingBoundAreCheckedAndNamed() {
        assertThatCode(() -> ListenerSettings.check(0, 1, 1)).doesNotThrowAnyException();
        assertThatCode(() -> ListenerSettings.check(65535, 8, 1024)).doesNotThrowAnyException();
        assertThatThrownBy(() -> ListenerSettings.check(-1, 1, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("port out of range: -1");
        assertThatThrownBy(() -> ListenerSettings.check(65536, 1, 1)).hasMessage("port out of range: 65536");
        assertThatThrownBy(() -> ListenerSettings.check(0, 0, 1)).hasMessage("ioThreads must be positive: 0");
        assertThatThrownBy(() -> ListenerSettings.check(0, 1, 0))
                .hasMessage("maxPendingPerConnection must be positive: 0");
    }

    @Test
    void bothFrontEndsConfigurationsRefuseTheSameBounds() {
        assertThatThrownBy(() -> RespServerConfig.of("127.0.0.1", 70_000)).hasMessage("port out of range: 70000");
        assertThatThrownBy(() -> ZkServerConfig.of("127.0.0.1", 70_000)).hasMessage("port out of range: 70000");
        assertThatThrownBy(() -> RespServerConfig.of("127.0.0.1", 0).withIoThreads(0))
                .hasMessage("ioThreads must be positive: 0");
        assertThatThrownBy(() -> ZkServerConfig.of("127.0.0.1", 0).withIoThreads(0))
                .hasMessage("ioThreads must be positive: 0");
        assertThatThrownBy(() -> RespServerConfig.of("127.0.0.1", 0).withMaxPendingPerConnection(0))
                .hasMessage("maxPendingPerConnection must be positive: 0");
        assertThatThrownBy(() -> ZkServerConfig.of("127.0.0.1", 0).withMaxPendingPerConnection(0))
                .hasMessage("maxPendingPerConnection must be positive: 0");
    }
}
