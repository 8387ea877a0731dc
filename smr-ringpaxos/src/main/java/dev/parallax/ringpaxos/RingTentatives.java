package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;

import java.util.List;
import java.util.function.ObjLongConsumer;

/**
 * What an M-Ring member tells its replica for speculative execution (seed 003 (Marandi thesis)
 * §4.2.1, {@code mring.speculation=on}): "in M-Ring Paxos the order assigned by the coordinator when
 * a command is ip-multicast is always confirmed by the acceptors; the only situation in which the
 * execution order of a command may change is when the coordinator is replaced". Rules:
 * <ul>
 *   <li><b>T1</b> the Phase 2A of the member's current round (or a newer one) reports each of its
 *       undecided entries as a tentative position ({@link Effects#tentative}); at the coordinator
 *       when it opens them, elsewhere when the 2A arrives (datagram or unicast). A 2A of an older
 *       round reports nothing.</li>
 *   <li><b>T2</b> once the member's round moves past the round it reported tentatives of (a new
 *       coordinator, or the same one re-forming its ring: either may fix other values for undecided
 *       instances), it revokes every position from its first undecided instance on
 *       ({@link Effects#tentativesRevoked}), before any tentative of the new round.</li>
 * </ul>
 * Off (the default), for U-Ring, and for a ring of Multi-Ring Paxos ({@code ring.lambda} &gt; 0: its
 * deliveries are merged, their positions are not the ring's instances) it reports nothing.
 *
 * <p>Events: {@code mring.tentatives}, {@code mring.tentatives.revoked}.
 *
 * <p>Not thread-safe: owned by the variant, on the core's thread. Pure.
 */
final class RingTentatives {
    private final boolean on;
    /** The round whose tentatives were reported last; -1 before any. */
    private long round = -1;
    private long reported;
    private long revocations;

    RingTentatives(RingConfig config) {
        this.on = config.speculation() && config.kind() == Ring.Kind.M_RING && config.lambda() == 0;
    }

    /** T1: the 2A of {@code round} fixed {@code entries}; {@code current} is the member's own round. */
    void fixed(long round, long current, List<Phase2Entry> entries, long firstUndecided,
               Effects<RingWire, RingRecord, RingValue> out) {
        if (!on || round < current || round < this.round) {
            return;
        }
        roundIs(round, firstUndecided, out);
        for (Phase2Entry e : entries) {
            if (e.instance() >= firstUndecided) {
                out.tentative(e.instance(), new RingValue.Chosen(e.vid(),
                        e.vid().isBodiless() ? null : e.value().asReadOnlyBuffer()));
                reported++;
            }
        }
    }

    /** T2: the member is in {@code round} now. */
    void roundIs(long round, long firstUndecided, Effects<RingWire, RingRecord, RingValue> out) {
        if (!on || round <= this.round) {
            return;
        }
        if (this.round >= 0) {
            out.tentativesRevoked(firstUndecided);
            revocations++;
        }
        this.round = round;
    }

    void reportEvents(ObjLongConsumer<String> sink) {
        if (on) {
            sink.accept("mring.tentatives", reported);
            sink.accept("mring.tentatives.revoked", revocations);
        }
    }
}
