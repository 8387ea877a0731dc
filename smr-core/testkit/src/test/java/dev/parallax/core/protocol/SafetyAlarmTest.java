package dev.parallax.core.protocol;

import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Queues;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A core's {@link SafetyViolation} effect, applied by the shared {@link EffectApplier} and the
 * runtime's {@link ProtocolStage}: the alarm is raised, nothing of the step or of any later one is
 * stored, sent or decided, the stage counts it ({@code parallax.safety.alarms}), tells its hook and
 * stops driving the core; a step without one is applied exactly as before.
 */
class SafetyAlarmTest {
    private static final RecordCodec<String> STRINGS = new RecordCodec<>() {
        @Override
        public ByteBuffer encode(String record) {
            return ByteBuffer.wrap(record.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String decode(ByteBuffer bytes) {
            return StandardCharsets.UTF_8.decode(bytes.duplicate()).toString();
        }
    };

    private static final SafetyViolation VIOLATION = new SafetyViolation(3,
            new SafetyViolation.Origin(SafetyViolation.LOCAL, "a quorum of Accepts", 1, "vA"),
            new SafetyViolation.Origin(2, "CatchUpReply", 4, "vB"));

    private final InMemoryDurableLog log = InMemoryDurableLog.create();
    private final List<String> events = new ArrayList<>();
    private final List<SafetyViolation> alarms = new ArrayList<>();
    private final EffectBuffer<String, String, String> buffer = new EffectBuffer<>();
    private final EffectApplier<String, String, String> applier = new EffectApplier<>(log, STRINGS,
            (to, m) -> events.add("send " + to + " " + m), (g, m) -> events.add("multicast " + g + " " + m),
            (i, v) -> events.add("decide " + i + " " + v), (peer, i) -> events.add("snapshot " + peer + " " + i),
            alarms::add);

    @Test
    @DisplayName("A step that reports a violation raises the alarm and applies nothing; later steps are discarded")
    void aViolationStopsTheApplier() {
        buffer.persist("before", true);
        buffer.decide(2, "x");
        applier.apply(buffer);
        assertThat(applier.stopped()).isFalse();

        buffer.persist("vote", true);
        buffer.send(1, "ack");
        buffer.sendDatagram(0, "2a");
        buffer.decide(3, "y");
        buffer.snapshotNeeded(1, 9);
        buffer.safetyViolation(VIOLATION);
        buffer.wakeAt(5);
        assertThat(applier.apply(buffer)).isEqualTo(Long.MAX_VALUE);
        assertThat(alarms).containsExactly(VIOLATION);
        assertThat(applier.stopped()).isTrue();
        assertThat(buffer.isEmpty()).isTrue();

        buffer.persist("later", true);
        buffer.decide(4, "z");
        applier.apply(buffer);
        assertThat(log.nextIndex()).as("only the record before the alarm").isEqualTo(1);
        assertThat(events).containsExactly("decide 2 x");
        assertThat(alarms).hasSize(1);
    }

    @Test
    @DisplayName("A driver without an alarm sink fails loudly, and is stopped all the same")
    void withoutASinkTheAlarmThrows() {
        EffectApplier<String, String, String> bare = new EffectApplier<>(log, STRINGS, (to, m) -> { },
                (i, v) -> events.add("decide " + i), (peer, i) -> { });
        buffer.decide(3, "y");
        buffer.safetyViolation(VIOLATION);
        assertThatThrownBy(() -> bare.apply(buffer)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("two different decisions for instance 3")
                .hasMessageContaining("member 2 (CatchUpReply, round 4)");
        assertThat(bare.stopped()).isTrue();
        assertThat(events).isEmpty();
    }

    @Test
    @DisplayName("Effects.safetyViolation throws by default (drivers that cannot stop)")
    void effectsDefaultIsUnsupported() {
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
        assertThatThrownBy(() -> bare.safetyViolation(VIOLATION)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    @DisplayName("describe() names the instance and both origins")
    void describeNamesBothOrigins() {
        assertThat(VIOLATION.describe()).isEqualTo("two different decisions for instance 3: kept value vA from this member "
                + "(a quorum of Accepts, round 1), then value vB from member 2 (CatchUpReply, round 4)");
    }

    /** Decides each message; "conflict" also stores, sends and reports a violation. */
    private static final class ConflictOnCue implements ProtocolCore<String, String, String> {
        int messages;
        long next;

        @Override
        public void onMessage(int from, String message, long now, Effects<String, String, String> out) {
            messages++;
            if (message.equals("conflict")) {
                out.persist("vote", true);
                out.send(1, "ack");
                out.send(0, "to-self");
                out.safetyViolation(VIOLATION);
            }
            out.decide(next++, message);
        }

        @Override
        public void onTick(long now, Effects<String, String, String> out) {
        }

        @Override
        public boolean onProposal(String value, long now, Effects<String, String, String> out) {
            return false;
        }
    }

    @Test
    @DisplayName("ProtocolStage: the alarm is counted, logged and handed to the hook; the core is driven no more")
    void theStageStopsDrivingTheCore() {
        ConflictOnCue core = new ConflictOnCue();
        BoundedQueue<ProtocolStage.Inbound<String>> inbox = Queues.mpsc(64);
        List<String> executed = new ArrayList<>();
        List<String> sent = new ArrayList<>();
        Transport<String> network = new Transport<>() {
            @Override
            public int localId() {
                return 0;
            }

            @Override
            public void start(MessageHandler<String> handler) {
            }

            @Override
            public boolean send(int to, String message) {
                return sent.add(message);
            }

            @Override
            public void close() {
            }
        };
        ProtocolStage<String, String, String> stage = new ProtocolStage<>("protocol-alarm", 0, core, inbox, Queues.mpsc(4),
                log, STRINGS, network, (instance, value) -> executed.add(value), (peer, instance) -> { },
                () -> 0L, 1_000_000L, 1);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        stage.registerMeters(registry, "test");
        List<SafetyViolation> hook = new ArrayList<>();
        stage.onSafetyAlarm(hook::add);

        inbox.offer(new ProtocolStage.Inbound<>(1, "m0"));
        stage.doWork();
        assertThat(executed).containsExactly("m0");

        inbox.offer(new ProtocolStage.Inbound<>(1, "conflict"));
        inbox.offer(new ProtocolStage.Inbound<>(1, "m2"));
        stage.doWork();
        assertThat(hook).containsExactly(VIOLATION);
        assertThat(stage.safetyViolation()).isEqualTo(VIOLATION);
        assertThat(stage.safetyAlarms()).isEqualTo(1);
        assertThat(registry.get("parallax.safety.alarms").tag("protocol", "test").functionCounter().count()).isEqualTo(1.0);

        for (int i = 0; i < 5; i++) {
            stage.doWork();
        }
        assertThat(core.messages).as("m2 never reached the core").isEqualTo(2);
        assertThat(executed).containsExactly("m0");
        assertThat(sent).isEmpty();
        assertThat(log.nextIndex()).isZero();
        FunctionCounter ignored = registry.get("parallax.protocol.ignored.after.log.failure").functionCounter();
        assertThat(ignored.count()).isEqualTo(1.0);
    }
}
