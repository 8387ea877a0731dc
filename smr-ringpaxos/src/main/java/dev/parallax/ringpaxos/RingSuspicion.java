package dev.parallax.ringpaxos;

import dev.parallax.core.liveness.MemberDetector;
import dev.parallax.core.liveness.RankedTimeout;

/**
 * When a member is suspected (rule C8), in the runtime's {@link MemberDetector} and on the core's own
 * ticks alike: the coordinator of the watched round after {@code suspect × (1 + rank/2)}, rank =
 * {@code floorMod(self − c − 1, n)} ({@link RankedTimeout}: the next member after the coordinator
 * moves first, so rounds do not duel), any other watched member (the coordinator watches its ring)
 * after {@code suspect}. Seed 003 (Ring Paxos) only says a process "will suspect the failure of a
 * process"; the detector is ours.
 *
 * <p>Immutable and thread-safe.
 */
public final class RingSuspicion implements MemberDetector.Rule {
    private final int self;
    private final RingConfig config;

    public RingSuspicion(RingConfig config, int self) {
        this.config = config;
        this.self = self;
    }

    /** The silence after which {@code member}, watched in round {@code epoch}, is suspected. */
    public long timeoutNanos(long epoch, int member) {
        int c = epoch < 0 ? 0 : config.coordinatorOf(epoch);
        if (member == c && member != self) {
            return RankedTimeout.timeoutNanos(self, c, config.members(), config.suspectNanos());
        }
        return config.suspectNanos();
    }

    @Override
    public boolean suspects(long epoch, int member, long lastHeard, long now) {
        return now - lastHeard > timeoutNanos(epoch, member);
    }
}
