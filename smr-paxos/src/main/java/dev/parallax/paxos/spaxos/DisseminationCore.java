package dev.parallax.paxos.spaxos;

import dev.parallax.core.protocol.Effects;
import dev.parallax.core.protocol.ProtocolCore;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.ObjLongConsumer;

/**
 * S-Paxos' dissemination layer (seed 002 (S-Paxos) §IV-A, Alg. 1 l.9–15, l.23–31; §IV-C).
 * Skeleton: the final public API; the rules follow.
 *
 * <p>Not thread-safe: one driver thread; never blocks.
 */
public final class DisseminationCore implements ProtocolCore<DisseminationMessage, DisseminationRecord, Batch> {
    private final SPaxosConfig config;
    private final int self;
    private final long incarnation;

    /**
     * @param config the settings
     * @param self this replica's id in {@code [0, n)}
     * @param recovered the records found in the log at start, in log order
     * @param incarnationFloor the lowest incarnation allowed (wall-clock ms in production)
     * @param now the driver's clock at start
     */
    public DisseminationCore(SPaxosConfig config, int self, List<DisseminationRecord> recovered, long incarnationFloor, long now) {
        this.config = config;
        this.self = self;
        long inc = incarnationFloor;
        for (DisseminationRecord r : recovered) {
            if (r instanceof DisseminationRecord.IncarnationRecord i) {
                inc = Math.max(inc, i.incarnation() + 1);
            }
        }
        this.incarnation = inc;
    }

    /** This replica's incarnation. */
    public long incarnation() {
        return incarnation;
    }

    @Override
    public void onMessage(int from, DisseminationMessage message, long now, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
    }

    @Override
    public void onTick(long now, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
    }

    @Override
    public boolean onProposal(Batch value, long now, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
        return false;
    }

    /** A read-only view of the body of {@code id}, or null when not held. */
    public ByteBuffer body(BatchId id) {
        return null;
    }

    /** {@code id} was decided and its body is needed now: fetch it from a holder at once, then every Δ. */
    public void want(BatchId id, long now, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
    }

    /** {@code id} was decided (by the ordering layer). */
    public void decided(BatchId id) {
    }

    /** {@code id} executed at {@code instance}: its body may go once a snapshot covers {@code instance}. */
    public void executed(BatchId id, long instance) {
    }

    @Override
    public void compact(long instance, Effects<DisseminationMessage, DisseminationRecord, Batch> out) {
    }

    /** A snapshot covering instances below {@code instance} with executed ids {@code executed} was installed. */
    public void restore(ExecutedIds executed, long instance) {
    }

    /** Bodies held. */
    public int heldBodies() {
        return 0;
    }

    /** Bytes of the bodies held. */
    public long heldBytes() {
        return 0;
    }

    @Override
    public void reportEvents(ObjLongConsumer<String> sink) {
    }
}
