package dev.parallax.core.protocol;

import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Queues;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The protocol stage's bound on decisions kept for a lagging execution, and its suspicion input. */
class ProtocolStageTest {

    /** Decides one instance per message, carrying the message as the value; records suspicions. */
    private static final class DecideEachMessage implements ProtocolCore<String, String, String> {
        final List<Long> suspicions = new ArrayList<>();
        long next;

        @Override
        public void onMessage(int from, String message, long now, Effects<String, String, String> out) {
            out.decide(next++, message);
        }

        @Override
        public void onTick(long now, Effects<String, String, String> out) {
        }

        @Override
        public boolean onProposal(String value, long now, Effects<String, String, String> out) {
            return false;
        }

        @Override
        public void onSuspect(long view, long now, Effects<String, String, String> out) {
            suspicions.add(view);
        }
    }

    private static class NoNetwork implements Transport<String> {
        @Override
        public int localId() {
            return 0;
        }

        @Override
        public void start(MessageHandler<String> handler) {
        }

        @Override
        public boolean send(int to, String message) {
            return true;
        }

        @Override
        public void close() {
        }
    }

    private static final RecordCodec<String> CODEC = new RecordCodec<>() {
        @Override
        public ByteBuffer encode(String record) {
            return ByteBuffer.wrap(record.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }

        @Override
        public String decode(ByteBuffer bytes) {
            return java.nio.charset.StandardCharsets.UTF_8.decode(bytes).toString();
        }
    };

    private final DecideEachMessage core = new DecideEachMessage();
    private final BoundedQueue<ProtocolStage.Inbound<String>> inbox = Queues.mpsc(64);
    private final List<String> executed = new ArrayList<>();
    private boolean executionStalled = true;
    private final ProtocolStage<String, String, String> stage = new ProtocolStage<>("protocol-test", 0, core, inbox,
            Queues.mpsc(4), InMemoryDurableLog.create(), CODEC, new NoNetwork(),
            (instance, value) -> !executionStalled && executed.add(value), (peer, instance) -> { },
            () -> 0L, 1_000_000L, 2, 4);

    @Test
    void aLaggingExecutionStopsTheInboxFromBeingDrainedAndThenCatchesUpInOrder() {
        for (int i = 0; i < 10; i++) {
            assertThat(inbox.offer(new ProtocolStage.Inbound<>(1, "m" + i))).isTrue();
        }
        for (int step = 0; step < 10; step++) {
            stage.doWork();
        }
        // Two batches of two were taken; then the four kept decisions stopped the inbox.
        assertThat(stage.undeliveredHighWater()).isEqualTo(4);
        assertThat(inbox.size()).isEqualTo(6);
        assertThat(executed).isEmpty();

        executionStalled = false;
        for (int step = 0; step < 10; step++) {
            stage.doWork();
        }
        assertThat(executed).containsExactly("m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9");
        assertThat(inbox.size()).isZero();
        assertThat(stage.undeliveredHighWater()).isEqualTo(4);
    }

    @Test
    void suspicionsReachTheCoreOnceCoalescedToTheHighestViewEvenWhileTheInboxIsLeftAlone() {
        for (int i = 0; i < 10; i++) {
            inbox.offer(new ProtocolStage.Inbound<>(1, "m" + i));
        }
        stage.doWork();
        stage.doWork();
        stage.suspect(5);
        stage.suspect(3);
        stage.suspect(7);
        stage.suspect(-1); // not a view: ignored
        assertThat(stage.doWork()).isPositive();
        stage.doWork();
        assertThat(core.suspicions).containsExactly(7L);
        assertThat(inbox.size()).isEqualTo(6);
        stage.suspect(8);
        stage.doWork();
        assertThat(core.suspicions).containsExactly(7L, 8L);
    }

    /** Refuses every proposal and asks for a wake-up while refusing (as S-Paxos' dissemination does); counts messages. */
    private static final class RefusesWithEffects implements ProtocolCore<String, String, String> {
        int refusals;
        int messages;

        @Override
        public void onMessage(int from, String message, long now, Effects<String, String, String> out) {
            messages++;
        }

        @Override
        public void onTick(long now, Effects<String, String, String> out) {
        }

        @Override
        public boolean onProposal(String value, long now, Effects<String, String, String> out) {
            refusals++;
            out.wakeAt(now + 1_000);
            return false;
        }

        @Override
        public void onSuspect(long view, long now, Effects<String, String, String> out) {
        }
    }

    @Test
    void aCoreThatEmitsEffectsWhileRefusingAProposalDoesNotHoldThePassAndTheInboxIsStillDrained() {
        RefusesWithEffects refusing = new RefusesWithEffects();
        BoundedQueue<String> proposals = Queues.mpsc(4);
        ProtocolStage<String, String, String> s = new ProtocolStage<>("refusing", 0, refusing, inbox, proposals,
                InMemoryDurableLog.create(), CODEC, new NoNetwork(), (i, v) -> true, (p, i) -> { }, () -> 0L, 1_000_000L, 8, 4);
        assertThat(proposals.offer("batch")).isTrue();
        inbox.offer(new ProtocolStage.Inbound<>(1, "m0"));
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10), () -> {
            s.doWork();
            s.doWork();
        }, "a pass re-offered the refused proposal forever");
        assertThat(refusing.messages).isEqualTo(1);
        assertThat(refusing.refusals).isEqualTo(2); // once per pass, kept for the next one
    }

    @Test
    void theBoundMustBePositive() {
        assertThatThrownBy(() -> new ProtocolStage<>("bad", 0, core, inbox, Queues.<String>mpsc(4),
                InMemoryDurableLog.create(), CODEC, new NoNetwork(), (i, v) -> true, (p, i) -> { },
                () -> 0L, 1L, 2, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Multicasts every message it receives to group 0. */
    private static class Echoes implements ProtocolCore<String, String, String> {
        @Override
        public void onMessage(int from, String message, long now, Effects<String, String, String> out) {
            out.sendDatagram(0, message);
        }

        @Override
        public void onTick(long now, Effects<String, String, String> out) {
        }

        @Override
        public boolean onProposal(String value, long now, Effects<String, String, String> out) {
            return false;
        }

        @Override
        public void onSuspect(long view, long now, Effects<String, String, String> out) {
        }
    }

    @Test
    @org.junit.jupiter.api.DisplayName("a core's multicasts reach transport.multicast and count in messages.sent.by.type")
    void multicastsGoToTheTransportAndAreCounted() {
        List<String> multicast = new ArrayList<>();
        Transport<String> groups = new NoNetwork() {
            @Override
            public boolean sendDatagram(int group, String message) {
                multicast.add(group + ":" + message);
                return true;
            }
        };
        ProtocolStage<String, String, String> s = new ProtocolStage<>("mcast", 0, new Echoes(), inbox, Queues.mpsc(4),
                InMemoryDurableLog.create(), CODEC, groups, (i, v) -> true, (p, i) -> { }, () -> 0L, 1_000_000L, 8, 4);
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        s.registerMeters(registry, "toy");
        inbox.offer(new ProtocolStage.Inbound<>(1, "a"));
        inbox.offer(new ProtocolStage.Inbound<>(2, "b"));
        s.doWork();
        assertThat(multicast).containsExactly("0:a", "0:b");
        assertThat(registry.get("parallax.protocol.messages.sent.by.type").tag("type", "String").counter().count())
                .isEqualTo(2.0);
    }

    /** Records delivery progress it is told about. */
    private static final class WatchesDelivery extends Echoes {
        final List<Long> delivered = new ArrayList<>();

        @Override
        public void onDelivered(long nextInstance, long now, Effects<String, String, String> out) {
            delivered.add(nextInstance);
        }
    }

    @Test
    @org.junit.jupiter.api.DisplayName("onDelivered reaches the core once per growth of the delivery progress, never for a repeat")
    void deliveryProgressOnGrowthOnly() {
        WatchesDelivery watcher = new WatchesDelivery();
        ProtocolStage<String, String, String> s = new ProtocolStage<>("progress", 0, watcher, inbox, Queues.mpsc(4),
                InMemoryDurableLog.create(), CODEC, new NoNetwork(), (i, v) -> true, (p, i) -> { }, () -> 0L, 1_000_000L, 8, 4);
        long[] progress = {0};
        s.deliveryProgress(() -> progress[0]);
        s.doWork();
        assertThat(watcher.delivered).as("no progress yet").isEmpty();
        progress[0] = 3;
        s.doWork();
        s.doWork();
        assertThat(watcher.delivered).containsExactly(3L);
        progress[0] = 2; // never goes back; ignored if it did
        s.doWork();
        progress[0] = 7;
        s.doWork();
        assertThat(watcher.delivered).containsExactly(3L, 7L);
    }

    /** Records member suspicions. */
    private static final class WatchesMembers extends Echoes {
        final List<String> suspected = new ArrayList<>();

        @Override
        public void onSuspectMember(int member, long epoch, long now, Effects<String, String, String> out) {
            suspected.add(epoch + "/" + member);
        }
    }

    @Test
    @org.junit.jupiter.api.DisplayName("member suspicions reach the core once per (epoch, member); a higher epoch replaces the pending one")
    void memberSuspicionsCoalesce() {
        WatchesMembers watcher = new WatchesMembers();
        ProtocolStage<String, String, String> s = new ProtocolStage<>("members", 0, watcher, inbox, Queues.mpsc(4),
                InMemoryDurableLog.create(), CODEC, new NoNetwork(), (i, v) -> true, (p, i) -> { }, () -> 0L, 1_000_000L, 8, 4);
        s.suspectMember(3, 2);
        s.suspectMember(3, 1);
        s.suspectMember(3, 2);
        assertThat(s.doWork()).isPositive();
        s.doWork();
        assertThat(watcher.suspected).containsExactly("3/1", "3/2");

        s.suspectMember(4, 1);
        s.suspectMember(5, 2); // replaces epoch 4
        s.suspectMember(4, 3); // lower than pending: ignored
        s.suspectMember(-1, 0); // not an epoch
        s.suspectMember(5, 64); // not a member
        s.doWork();
        assertThat(watcher.suspected).containsExactly("3/1", "3/2", "5/2");
        s.doWork();
        assertThat(watcher.suspected).hasSize(3);
    }

    /** A string as a composed core's union carries it: a wrapper of the channel's own message. */
    private record Boxed(String wrapped) implements MessageWrapper {
    }

    /** Answers every message with a wrapped copy to member 1. */
    private static final class BoxEchoes implements ProtocolCore<Boxed, String, String> {
        @Override
        public void onMessage(int from, Boxed message, long now, Effects<Boxed, String, String> out) {
            out.send(1, new Boxed(message.wrapped() + "!"));
        }

        @Override
        public void onTick(long now, Effects<Boxed, String, String> out) {
        }

        @Override
        public boolean onProposal(String value, long now, Effects<Boxed, String, String> out) {
            return false;
        }
    }

    @Test
    @org.junit.jupiter.api.DisplayName("a MessageWrapper is counted by type as the message it wraps, sent and received")
    void wrappersCountAsTheWrappedType() {
        List<Boxed> sent = new ArrayList<>();
        Transport<Boxed> network = new Transport<>() {
            @Override
            public int localId() {
                return 0;
            }

            @Override
            public void start(MessageHandler<Boxed> handler) {
            }

            @Override
            public boolean send(int to, Boxed message) {
                sent.add(message);
                return true;
            }

            @Override
            public void close() {
            }
        };
        BoundedQueue<ProtocolStage.Inbound<Boxed>> boxes = Queues.mpsc(4);
        ProtocolStage<Boxed, String, String> s = new ProtocolStage<>("boxes", 0, new BoxEchoes(), boxes, Queues.mpsc(4),
                InMemoryDurableLog.create(), CODEC, network, (i, v) -> true, (p, i) -> { }, () -> 0L, 1_000_000L, 8, 4);
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        s.registerMeters(registry, "toy");
        boxes.offer(new ProtocolStage.Inbound<>(1, new Boxed("a")));
        boxes.offer(new ProtocolStage.Inbound<>(2, new Boxed("b")));
        s.doWork();
        assertThat(sent).containsExactly(new Boxed("a!"), new Boxed("b!"));
        assertThat(registry.get("parallax.protocol.messages.sent.by.type").tag("type", "String").counter().count())
                .isEqualTo(2.0);
        assertThat(registry.get("parallax.protocol.messages.received.by.type").tag("type", "String").counter().count())
                .isEqualTo(2.0);
        assertThat(registry.find("parallax.protocol.messages.sent.by.type").tag("type", "Boxed").counter()).isNull();
    }
}
