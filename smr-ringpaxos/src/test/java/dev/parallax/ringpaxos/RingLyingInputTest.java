package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.EffectBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static dev.parallax.ringpaxos.RingCluster.batch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * Bad input never crashes the core (the project's rule; {@link RingWireBounds}: the codec
 * refuses, the core ignores and counts {@code malformed}; packets off their ring count
 * {@code packets.misrouted}). Each lie is fed straight to a working member, which then goes on as
 * before.
 */
class RingLyingInputTest {
    private static final ByteBuffer V = ByteBuffer.wrap(new byte[]{1}).asReadOnlyBuffer();
    private static final ValueId VID = new ValueId(1, 0, 1);

    private static long event(RingPaxosCore core, String name) {
        long[] n = new long[1];
        core.reportEvents((k, v) -> {
            if (k.equals(name)) {
                n[0] = v;
            }
        });
        return n[0];
    }

    @Test
    @DisplayName("RingWireBounds: lying numbers, rings and senders are ignored and counted, the member goes on")
    void lyingInputIsIgnored() {
        RingCluster c = new RingCluster(RingCluster.uRing(3));
        c.start();
        c.propose(0, batch("before"));
        c.deliverAll(100);
        RingPaxosCore core = c.core(1);
        Ring ring = core.ring();
        long round = core.round();
        long first = core.firstUndecided();
        Ring foreign = new Ring(Ring.Kind.U_RING, new int[]{0, 7, 2}, 2);
        Ring mring = Ring.mRing(0, new int[]{1});
        List<RingWire> lies = List.of(
                new RingMessage.Phase1A(-5, 0),
                new RingMessage.Phase1A(RingWireBounds.MAX_NUMBER + 1, 0),
                new RingMessage.Phase1B(0, -1, 0, List.of(), -7),
                new RingMessage.Heartbeat(3, foreign, 0, 0),
                new RingMessage.Heartbeat(3, mring, 0, 0),
                new RingMessage.CatchUpQuery(0, 10, 2),
                new RingMessage.Proposal(0, List.of(new ProposalEntry(new ValueId(9, 0, 1), V))),
                new UPacket(0, foreign, List.of(new Phase2Entry(5, VID, V)), List.of(), List.of()),
                new UPacket(-1, ring, List.of(), List.of(), List.of()),
                new UPacket(0, ring, List.of(new Phase2Entry(-3, VID, V)), List.of(), List.of()));
        EffectBuffer<RingWire, RingRecord, RingValue> out = new EffectBuffer<>();
        for (RingWire lie : lies) {
            assertThatCode(() -> core.onMessage(0, lie, c.now(), out)).as("%s", lie).doesNotThrowAnyException();
        }
        assertThatCode(() -> core.onMessage(-1, new RingMessage.StepDown(0), c.now(), out)).doesNotThrowAnyException();
        assertThatCode(() -> core.onMessage(3, new RingMessage.StepDown(0), c.now(), out)).doesNotThrowAnyException();
        assertThatCode(() -> core.onMessage(0, null, c.now(), out)).doesNotThrowAnyException();
        assertThat(out.sends()).isEmpty();
        assertThat(out.records()).isEmpty();
        assertThat(event(core, "malformed")).isEqualTo(lies.size() + 3);
        assertThat(core.round()).isEqualTo(round);
        assertThat(core.firstUndecided()).isEqualTo(first);
        assertThat(core.ring()).isEqualTo(ring);

        // A well-formed packet from a member that is not the predecessor is misrouted.
        core.onMessage(2, new UPacket(0, ring, List.of(new Phase2Entry(5, VID, V)), List.of(), List.of()), c.now(), out);
        assertThat(event(core, "packets.misrouted")).isEqualTo(1);
        assertThat(out.records()).isEmpty();

        c.propose(2, batch("after"));
        c.deliverAll(100);
        assertThat(c.texts(1)).containsExactly("before", "after");
    }

    @Test
    @DisplayName("C7: only client batches are proposed; a full proposer refuses (back-pressure), it does not crash")
    void proposalsBeyondTheBoundAreRefused() {
        RingCluster c = new RingCluster(RingConfig.builder(3, Ring.Kind.U_RING).maxPending(2).build());
        c.start();
        c.isolate(1);
        assertThat(c.propose(1, batch("a"))).isTrue();
        assertThat(c.propose(1, batch("b"))).isTrue();
        assertThat(c.propose(1, batch("c"))).isFalse();
        assertThat(c.core(1).canPropose()).isFalse();
        assertThatCode(() -> c.core(1).onProposal(new RingValue.Chosen(ValueId.NOOP, null), c.now(), new EffectBuffer<>()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("C6: a catch-up query over a huge range is answered from what is kept, cut at the page limits")
    void hugeCatchUpRangeIsCheap() {
        RingCluster c = new RingCluster(RingConfig.builder(3, Ring.Kind.U_RING).catchUpMaxInstances(2).build());
        c.start();
        for (String s : List.of("a", "b", "c")) {
            c.propose(0, batch(s));
            c.deliverAll(100);
        }
        EffectBuffer<RingWire, RingRecord, RingValue> out = new EffectBuffer<>();
        c.core(1).onMessage(2, new RingMessage.CatchUpQuery(0, 0, RingWireBounds.MAX_NUMBER), c.now(), out);
        assertThat(out.sends()).hasSize(1);
        RingMessage.CatchUpReply reply = (RingMessage.CatchUpReply) out.sends().get(0).message();
        assertThat(reply.decided()).extracting(DecisionEntry::instance).containsExactly(0L, 1L);
        assertThat(reply.firstAvailable()).isZero();
    }
}
