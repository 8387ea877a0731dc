package dev.parallax.core.protocol;

import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.spi.DurableLogException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EffectApplierTest {
    private static final RecordCodec<String> STRINGS = new RecordCodec<>() {
        @Override
        public ByteBuffer encode(String record) {
            return ByteBuffer.wrap(record.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }

        @Override
        public String decode(ByteBuffer bytes) {
            byte[] b = new byte[bytes.remaining()];
            bytes.duplicate().get(b);
            return new String(b, java.nio.charset.StandardCharsets.UTF_8);
        }
    };

    private final InMemoryDurableLog log = InMemoryDurableLog.create();
    private final List<String> events = new ArrayList<>();
    private final EffectApplier<String, String, String> applier = new EffectApplier<>(log, STRINGS,
            (to, m) -> events.add("send " + to + " " + m + " durable=" + log.durableIndex()),
            (i, v) -> events.add("decide " + i + " " + v),
            (peer, i) -> events.add("snapshot from " + peer + " below " + i));
    private final EffectBuffer<String, String, String> buffer = new EffectBuffer<>();

    @Test
    void persistsAndSyncsBeforeSendingThenDecides() {
        buffer.send(1, "vote");
        buffer.decide(7, "x");
        buffer.persist("promise", false);
        buffer.persist("vote", true);
        buffer.snapshotNeeded(2, 40);
        buffer.wakeAt(500);
        buffer.wakeAt(300);
        long wake = applier.apply(buffer);
        assertThat(wake).isEqualTo(300);
        assertThat(log.nextIndex()).isEqualTo(2);
        assertThat(events).containsExactly("send 1 vote durable=2", "decide 7 x", "snapshot from 2 below 40");
        assertThat(buffer.isEmpty()).isTrue();
    }

    @Test
    void tentativesGoAfterTheDecisionsOfTheStepAndAreDroppedWithoutASink() {
        buffer.tentative(8, "y");
        buffer.decide(7, "x");
        buffer.tentativesRevoked(8);
        applier.apply(buffer);
        assertThat(events).as("no sink: dropped").containsExactly("decide 7 x");
        assertThat(buffer.isEmpty()).isTrue();
        events.clear();
        applier.tentatives((i, v, revoked) -> events.add((revoked ? "revoke from " : "tentative ") + i + (revoked ? "" : " " + v)));
        buffer.tentative(8, "y");
        buffer.decide(7, "x");
        buffer.tentativesRevoked(8);
        applier.apply(buffer);
        assertThat(events).containsExactly("decide 7 x", "tentative 8 y", "revoke from 8");
    }

    @Test
    void recordsWithoutSyncAreAppendedButNotSynced() {
        buffer.persist("lazy", false);
        buffer.send(2, "m");
        applier.apply(buffer);
        assertThat(log.nextIndex()).isEqualTo(1);
        assertThat(log.durableIndex()).isZero();
        assertThat(events).containsExactly("send 2 m durable=0");
    }

    @Test
    void aFailingLogSendsNothing() {
        log.storage().failWrites(true);
        buffer.persist("vote", true);
        buffer.send(1, "ack");
        assertThatThrownBy(() -> applier.apply(buffer)).isInstanceOf(DurableLogException.class);
        assertThat(events).isEmpty();
    }

    private final EffectApplier<String, String, String> groupApplier = new EffectApplier<>(log, STRINGS,
            (to, m) -> events.add("send " + to + " " + m + " durable=" + log.durableIndex()),
            (g, m) -> events.add("multicast " + g + " " + m + " durable=" + log.durableIndex()),
            (i, v) -> events.add("decide " + i + " " + v),
            (peer, i) -> events.add("snapshot from " + peer + " below " + i));

    @Test
    @DisplayName("multicasts go out after the sync and the point-to-point sends, before the decisions")
    void multicastsFollowSyncAndSends() {
        buffer.sendDatagram(0, "phase2");
        buffer.decide(3, "v");
        buffer.send(2, "ack");
        buffer.persist("vote", true);
        buffer.sendDatagram(1, "decision");
        assertThat(buffer.datagrams()).containsExactly(new EffectBuffer.GroupSend<>(0, "phase2"),
                new EffectBuffer.GroupSend<>(1, "decision"));
        assertThat(buffer.isEmpty()).isFalse();
        groupApplier.apply(buffer);
        assertThat(events).containsExactly("send 2 ack durable=1", "multicast 0 phase2 durable=1",
                "multicast 1 decision durable=1", "decide 3 v");
        assertThat(buffer.datagrams()).isEmpty();
        assertThat(buffer.isEmpty()).isTrue();
    }

    @Test
    @DisplayName("a multicast-only step is not empty, and clear forgets it")
    void multicastAloneIsAnEffect() {
        buffer.sendDatagram(0, "m");
        assertThat(buffer.isEmpty()).isFalse();
        buffer.clear();
        assertThat(buffer.isEmpty()).isTrue();
    }

    @Test
    @DisplayName("no multicast leaves if the log fails")
    void aFailingLogMulticastsNothing() {
        log.storage().failWrites(true);
        buffer.persist("vote", true);
        buffer.sendDatagram(0, "phase2");
        assertThatThrownBy(() -> groupApplier.apply(buffer)).isInstanceOf(DurableLogException.class);
        assertThat(events).isEmpty();
    }

    @Test
    @DisplayName("the applier without datagram groups refuses a multicast clearly")
    void theFiveArgumentApplierRefusesMulticasts() {
        buffer.send(1, "m");
        buffer.sendDatagram(0, "x");
        assertThatThrownBy(() -> applier.apply(buffer)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no datagram groups");
        assertThat(events).containsExactly("send 1 m durable=0");
    }

    @Test
    @DisplayName("Effects.multicast throws by default (drivers without datagram groups)")
    void effectsMulticastDefaultsToUnsupported() {
        Effects<String, String, String> bare = new Effects<>() {
            @Override
            public void send(int to, String message) {
            }

            @Override
            public void persist(String record, boolean sync) {
            }

            @Override
            public void decide(long instance, String value) {
            }

            @Override
            public void wakeAt(long nanos) {
            }

            @Override
            public void snapshotNeeded(int peer, long instance) {
            }
        };
        assertThatThrownBy(() -> bare.sendDatagram(0, "x")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void emptyStepWakesNever() {
        assertThat(applier.apply(buffer)).isEqualTo(Long.MAX_VALUE);
        assertThat(events).isEmpty();
    }
}
