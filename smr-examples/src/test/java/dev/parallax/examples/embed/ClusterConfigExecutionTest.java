package dev.parallax.examples.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parallax.core.exec.SequentialExecutor;
import dev.parallax.core.runtime.ClusterConfig;
import dev.parallax.scheduler.ServiceClasses;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** An embedder's executor from the cluster file: the registered executor the file names, built from the service's traits. */
class ClusterConfigExecutionTest {

    @Test
    @DisplayName("ClusterConfig builds the executor a cluster file names, with execution.threads workers")
    void fromAClusterFile() {
        String members = "0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002";
        ServiceClasses withClasses = new ServiceClasses("counter", dev.parallax.scheduler.classmap.ReadWriteClasses::classMap, c -> 0);
        ClusterConfig c = ClusterConfig.of(Map.of("members", members, "execution", "early-busy-wait", "execution.threads", "3"));
        assertThat(c.executor(Map.of(ServiceClasses.class, withClasses))).isNotInstanceOf(SequentialExecutor.class);
        assertThat(ClusterConfig.of(Map.of("members", members)).executor(Map.of())).isInstanceOf(SequentialExecutor.class);
        assertThatThrownBy(() -> ClusterConfig.of(Map.of("members", members, "execution", "late-scheduling")).executor(Map.of()))
                .hasMessageContaining("execution=late-scheduling needs the request classes of the service");
        assertThatThrownBy(() -> ClusterConfig.of(Map.of("members", members, "execution.threads", "0")).executor(Map.of()))
                .hasMessageContaining("execution.threads must be >= 1, got 0");
    }
}
