package dev.parallax.core.testkit;

import dev.parallax.core.protocol.Effects;
import dev.parallax.core.protocol.ProtocolCore;
import dev.parallax.core.protocol.RecordCodec;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The simulator drives protocol cores by the driver contract: a message leaves only after the
 * records its step persisted with {@code sync} are durable, and a restarted core sees them.
 */
class CoreNodeTest {
    private static final long MS = 1_000_000L;

    /** "I stored value v as record index i." */
    record Stored(long index, long value) {
    }

    /** Persists each proposal (sync) and tells node 1; decides what it recovers at start. */
    static final class StoreAndTellCore implements ProtocolCore<Stored, Long, Long> {
        private final List<Long> values;

        StoreAndTellCore(List<Long> recovered) {
            this.values = new ArrayList<>(recovered);
        }

        @Override
        public void onMessage(int from, Stored message, long now, Effects<Stored, Long, Long> out) {
            out.decide(message.index(), message.value());
        }

        @Override
        public void onTick(long now, Effects<Stored, Long, Long> out) {
        }

        @Override
        public boolean onProposal(Long value, long now, Effects<Stored, Long, Long> out) {
            out.persist(value, true);
            out.send(1, new Stored(values.size(), value));
            values.add(value);
            return true;
        }
    }

    static final RecordCodec<Long> LONGS = new RecordCodec<>() {
        @Override
        public ByteBuffer encode(Long record) {
            return ByteBuffer.allocate(8).putLong(0, record);
        }

        @Override
        public Long decode(ByteBuffer bytes) {
            return bytes.getLong(bytes.position());
        }
    };

    @Test
    void messagesLeaveOnlyAfterTheirRecordsAreDurable() {
        Simulation<Stored> sim = new Simulation<>(9, FaultPlan.reliable());
        List<String> violations = new ArrayList<>();
        List<Long> decidedAt1 = new ArrayList<>();
        CoreNode.DecisionListener<Long> listener = (node, instance, value) -> decidedAt1.add(value);
        for (int id = 0; id < 2; id++) {
            sim.addNode(id, ctx -> new CoreNode<>(ctx, (i, rec, now) -> new StoreAndTellCore(rec), LONGS, listener), true);
        }
        sim.addInvariant(() -> {
            if (sim.storage(0).unsyncedCount() != 0) {
                violations.add("unsynced record at node 0 after a step");
            }
        });
        for (long v = 1; v <= 5; v++) {
            sim.<CoreNode<Stored, Long, Long>>node(0).propose(v);
        }
        sim.runFor(10 * MS);
        assertThat(violations).isEmpty();
        assertThat(decidedAt1).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);

        sim.crash(0);
        sim.restart(0);
        CoreNode<Stored, Long, Long> restarted = sim.node(0);
        assertThat(((StoreAndTellCore) restarted.core()).values).containsExactly(1L, 2L, 3L, 4L, 5L);
    }

    /** Multicasts each proposal to group 0 and decides whatever reaches it. */
    static final class MulticastCore implements ProtocolCore<Stored, Long, Long> {
        final List<Long> progress = new ArrayList<>();

        @Override
        public void onMessage(int from, Stored message, long now, Effects<Stored, Long, Long> out) {
            out.decide(message.index(), message.value());
        }

        @Override
        public void onTick(long now, Effects<Stored, Long, Long> out) {
        }

        @Override
        public boolean onProposal(Long value, long now, Effects<Stored, Long, Long> out) {
            out.sendDatagram(0, new Stored(value, value));
            return true;
        }

        @Override
        public void onDelivered(long nextInstance, long now, Effects<Stored, Long, Long> out) {
            progress.add(nextInstance);
        }

        @Override
        public void onSuspectMember(int member, long epoch, long now, Effects<Stored, Long, Long> out) {
            progress.add(-(epoch * 100 + member));
        }
    }

    @Test
    @org.junit.jupiter.api.DisplayName("a core's multicasts reach the other group members, not the sender's own core; groups are rejoined after a restart")
    void multicastsReachTheOtherMembers() {
        Simulation<Stored> sim = new Simulation<>(11, FaultPlan.reliable());
        List<String> decided = new ArrayList<>();
        CoreNode.DecisionListener<Long> listener = (node, instance, value) -> decided.add(node + ":" + value);
        for (int id = 0; id < 3; id++) {
            sim.addNode(id, ctx -> new CoreNode<>(ctx, (i, rec, now) -> new MulticastCore(), LONGS, listener).joinOnStart(0),
                    true);
        }
        sim.<CoreNode<Stored, Long, Long>>node(0).propose(1L);
        sim.runFor(10 * MS);
        assertThat(decided).containsExactlyInAnyOrder("1:1", "2:1");

        sim.crash(2);
        sim.restart(2);
        sim.runFor(MS);
        decided.clear();
        sim.<CoreNode<Stored, Long, Long>>node(0).propose(2L);
        sim.runFor(10 * MS);
        assertThat(decided).as("the restarted node joined again").containsExactlyInAnyOrder("1:2", "2:2");

        CoreNode<Stored, Long, Long> one = sim.node(1);
        one.delivered(4);
        one.suspectMember(2, 9);
        assertThat(((MulticastCore) one.core()).progress).containsExactly(4L, -902L);
    }
}
