package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.EffectBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.parallax.ringpaxos.RingCluster.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rounds from the wire cannot exhaust the round space: a message in a round near the ceiling
 * ({@code 2^62 - 1}, well formed by {@link RingWireBounds}) would make a member promise a round
 * nobody can ever outbid, stopping the ring for good (also across restarts: the promise is
 * durable). Such a round lies beyond reach ({@link RingWireBounds#beyondReach}): it is refused
 * before anything is promised or stored, counted, and the ring goes on deciding.
 */
class RingRoundCeilingTest {
    private static final long CEILING = RingWireBounds.MAX_NUMBER;

    private final EffectBuffer<RingWire, RingRecord, RingValue> out = new EffectBuffer<>();

    private static long event(RingPaxosCore core, String name) {
        long[] n = {0};
        core.reportEvents((k, v) -> {
            if (k.equals(name)) {
                n[0] = v;
            }
        });
        return n[0];
    }

    private static boolean promises(List<RingRecord> records, long round) {
        return records.stream().anyMatch(r -> r.toString().contains("round=" + round));
    }

    @Test
    @DisplayName("M-Ring: a Phase 2A and a Phase 1A in round 2^62-1 are refused, not promised, counted; the ring keeps deciding")
    void mRingRefusesRoundsNearTheCeiling() {
        RingCluster c = new RingCluster(RingConfig.builder(3, Ring.Kind.M_RING).build());
        c.start();
        c.propose(0, batch("before"));
        c.deliverAll(1000);
        RingPaxosCore member = c.core(1);
        long round = member.round();
        Ring ring = member.ring();
        // 2^62 - 1 = 0 (mod 3): member 0 coordinates that round.
        member.onMessage(0, new MPacket(CEILING, ring, List.of(), List.of(new Phase2Entry(1, new ValueId(0, 0, 77),
                java.nio.ByteBuffer.wrap(new byte[]{7}).asReadOnlyBuffer()))), c.now(), out);
        member.onMessage(2, new RingMessage.Phase1A(CEILING, 0), c.now(), out);

        assertThat(promises(out.records(), CEILING)).as("nothing in round 2^62-1 stored: %s", out.records()).isFalse();
        assertThat(out.sends()).isEmpty();
        assertThat(member.round()).isEqualTo(round);
        assertThat(event(member, "round.beyond.reach")).isEqualTo(2);

        c.propose(2, batch("after"));
        c.deliverAll(1000);
        c.settle(10, 20);
        assertThat(c.texts(1)).containsExactly("before", "after");
    }

    @Test
    @DisplayName("U-Ring: a Phase 1A in round 2^62-1 is refused and counted; a round within reach is still followed")
    void uRingRefusesRoundsNearTheCeiling() {
        RingCluster c = new RingCluster(RingCluster.uRing(3));
        c.start();
        RingPaxosCore member = c.core(1);
        long round = member.round();
        member.onMessage(2, new RingMessage.Phase1A(CEILING - 1, 0), c.now(), out);
        assertThat(promises(out.records(), CEILING - 1)).isFalse();
        assertThat(member.round()).isEqualTo(round);
        assertThat(event(member, "round.beyond.reach")).isEqualTo(1);

        c.propose(0, batch("a"));
        c.deliverAll(1000);
        c.settle(10, 20);
        assertThat(c.texts(1)).containsExactly("a");

        // A round a correct member could reach (its next own round) is handled as before.
        long next = member.round() + 2;
        member.onMessage(2, new RingMessage.Phase1A(next, 0), c.now(), out);
        assertThat(event(member, "round.beyond.reach")).isEqualTo(1);
    }

    @Test
    @DisplayName("RingWireBounds.beyondReach: more than 2^32 above the highest known round")
    void beyondReachIsAJumpOfMoreThanTwoToThe32() {
        assertThat(RingWireBounds.beyondReach(RingWireBounds.MAX_ROUND_JUMP, 0)).isFalse();
        assertThat(RingWireBounds.beyondReach(RingWireBounds.MAX_ROUND_JUMP + 1, 0)).isTrue();
        assertThat(RingWireBounds.beyondReach(RingWireBounds.MAX_ROUND_JUMP + 1, -1)).isTrue();
        assertThat(RingWireBounds.beyondReach(CEILING, CEILING - 5)).isFalse();
        assertThat(RingWireBounds.beyondReach(CEILING, 7)).isTrue();
        assertThat(RingWireBounds.roundOf(new RingMessage.RecoveryQuery(5))).isEqualTo(-1);
        assertThat(RingWireBounds.roundOf(new RingMessage.StepDown(9))).isEqualTo(9);
    }
}
