package dev.parallax.core.config;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReplicaConfigTest {
    private static final ClusterMembers THREE = ClusterMembers.parse("0=h:1,1=h:2,2=h:3");

    @Test
    void defaultsAreThePapersWhereItGivesThem() {
        ReplicaConfig c = ReplicaConfig.builder().id(1).members(THREE).build();
        assertThat(c.requestQueueCapacity()).isEqualTo(1000);
        assertThat(c.proposalQueueCapacity()).isEqualTo(20);
        assertThat(c.self()).isEqualTo(new Member(1, "h", 2));
        assertThat(c.dataDirectory()).isEmpty();
        assertThat(c.waitMode()).isEqualTo(ReplicaConfig.WaitMode.YIELD_PARK);
        assertThat(c.clientIoThreads()).isBetween(1, 4);
    }

    @Test
    void everyWaitModeMapsToAStrategy() {
        for (ReplicaConfig.WaitMode m : ReplicaConfig.WaitMode.values()) {
            assertThat(m.strategy()).isNotNull();
        }
    }

    @Test
    void clientIoThreadsScaleWithCores() {
        assertThat(ReplicaConfig.Builder.defaultClientIoThreads(1)).isEqualTo(1);
        assertThat(ReplicaConfig.Builder.defaultClientIoThreads(2)).isEqualTo(1);
        assertThat(ReplicaConfig.Builder.defaultClientIoThreads(8)).isEqualTo(4);
        assertThat(ReplicaConfig.Builder.defaultClientIoThreads(64)).isEqualTo(4);
    }

    @Test
    void toBuilderCopiesEveryValue() {
        ReplicaConfig c = ReplicaConfig.builder().id(2).members(THREE).dataDirectory(Path.of("/d"))
                .clientIoThreads(3).requestQueueCapacity(10).proposalQueueCapacity(11).decisionQueueCapacity(12)
                .sendQueueCapacity(13).maxFrameBytes(1 << 16).maxCommandBytes(1 << 10)
                .waitMode(ReplicaConfig.WaitMode.PARK).build();
        assertThat(c.toBuilder().build().toString()).isEqualTo(c.toString());
    }

    @Test
    void connectionLimitsHaveDocumentedDefaultsAndAreValidated() {
        ReplicaConfig c = ReplicaConfig.builder().id(0).members(THREE).build();
        assertThat(c.clientWriteLowBytes()).isEqualTo(256 << 10);
        assertThat(c.clientWriteHighBytes()).isEqualTo(1 << 20);
        assertThat(c.partialFrameTimeout()).isEqualTo(java.time.Duration.ofSeconds(30));
        ReplicaConfig set = c.toBuilder().clientWriteBufferWaterMarks(10, 20)
                .partialFrameTimeout(java.time.Duration.ofMillis(5)).build();
        assertThat(set.toBuilder().build().toString()).isEqualTo(set.toString()).contains("clientWriteWaterMarks=10/20");
        assertThat(set.partialFrameTimeout()).isEqualTo(java.time.Duration.ofMillis(5));
        assertThatThrownBy(() -> ReplicaConfig.builder().clientWriteBufferWaterMarks(20, 10)).hasMessageContaining("low <= high");
        assertThatThrownBy(() -> ReplicaConfig.builder().clientWriteBufferWaterMarks(0, 10)).hasMessageContaining("low <= high");
        assertThatThrownBy(() -> ReplicaConfig.builder().partialFrameTimeout(java.time.Duration.ZERO))
                .hasMessageContaining("partialFrameTimeout");
    }

    @Test
    void invalidValuesAreRejectedWithTheirName() {
        assertThatThrownBy(() -> ReplicaConfig.builder().members(THREE).build()).hasMessageContaining("id is required");
        assertThatThrownBy(() -> ReplicaConfig.builder().id(0).build()).hasMessageContaining("members are required");
        assertThatThrownBy(() -> ReplicaConfig.builder().id(3).members(THREE).build()).hasMessageContaining("not a member");
        assertThatThrownBy(() -> ReplicaConfig.builder().requestQueueCapacity(0)).hasMessageContaining("requestQueueCapacity");
        assertThatThrownBy(() -> ReplicaConfig.builder().id(-1)).hasMessageContaining(">= 0");
        assertThatThrownBy(() -> ReplicaConfig.builder().id(0).members(THREE).maxFrameBytes(100).maxCommandBytes(200).build())
                .hasMessageContaining("exceeds maxFrameBytes");
    }
}
