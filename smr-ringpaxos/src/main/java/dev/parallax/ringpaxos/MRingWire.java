package dev.parallax.ringpaxos;

import dev.parallax.core.spi.WireReader;
import dev.parallax.core.spi.WireWriter;

/**
 * The wire form of M-Ring's unicast messages, frame types 30–31 of {@link RingCodec} (which checks
 * the bounds and trailing bytes after {@link #decode}):
 *
 * <pre>
 * 30 Phase2B        round:8 count:4 (instance:8 vid)×count
 * 31 Phase2AUnicast round:8 ring count:4 (instance:8 vid value)×count
 * </pre>
 *
 * Stateless and thread-safe.
 */
final class MRingWire {
    /** Frame type of {@link MRingMessage.Phase2B}. */
    static final int PHASE_2B = 30;
    /** Frame type of {@link MRingMessage.Phase2AUnicast}. */
    static final int PHASE_2A_UNICAST = 31;

    private MRingWire() {
    }

    static int type(MRingMessage m) {
        return m instanceof MRingMessage.Phase2B ? PHASE_2B : PHASE_2A_UNICAST;
    }

    static void encode(MRingMessage m, WireWriter out) {
        if (m instanceof MRingMessage.Phase2B b) {
            out.putLong(b.round());
            RingCodec.writeInstanceVids(out, b.votes());
        } else {
            MRingMessage.Phase2AUnicast a = (MRingMessage.Phase2AUnicast) m;
            out.putLong(a.round());
            RingCodec.writeRing(out, a.ring());
            RingCodec.writePhase2(out, a.values());
        }
    }

    /** Reads a type-30 or type-31 body (the caller checks {@code end()} and bounds). */
    static MRingMessage decode(int type, WireReader b) {
        if (type == PHASE_2B) {
            return new MRingMessage.Phase2B(b.getLong(), RingCodec.readInstanceVids(b));
        }
        return new MRingMessage.Phase2AUnicast(b.getLong(), RingCodec.readRing(b), RingCodec.readPhase2(b));
    }
}
