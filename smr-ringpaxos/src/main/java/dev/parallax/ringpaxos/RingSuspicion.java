package dev.parallax.ringpaxos;

import dev.parallax.core.liveness.MemberDetector;
import dev.parallax.core.liveness.RankedTimeout;
import dev.parallax.core.membership.Membership;

import java.util.function.Supplier;

/**
 * When a member is suspected (rule C8), in the runtime's {@link MemberDetector} and on the core's own
 * ticks alike: the coordinator of the watched round after {@code suspect × (1 + rank/2)}, rank =
 * {@code floorMod(self − c − 1, n)} ({@link RankedTimeout}: the next member after the coordinator
 * moves first, so rounds do not duel), any other watched member (the coordinator watches its ring)
 * after {@code suspect}. Seed 003 (Ring Paxos) only says a process "will suspect the failure of a
 * process"; the detector is ours. Where the member set changes ({@link RingConfig#membershipChanges()}),
 * the rank is counted among the voters of the set in effect after the coordinator
 * ({@link Membership#rankAfter}; a non-voter ranks last), as Multi-Paxos ranks: counted over the
 * ids, two voters could share a rank and duel for ever.
 *
 * <p>Immutable and thread-safe (the set supplier must be too).
 */
public final class RingSuspicion implements MemberDetector.Rule {
    private final int self;
    private final RingConfig config;
    private final Supplier<Membership> members;

    /** Ranks over the fixed members {@code 0..n-1} (or, if the set changes, the cluster file's set). */
    public RingSuspicion(RingConfig config, int self) {
        this(config, self, () -> Membership.initial(config.members()));
    }

    /**
     * @param members the set in effect now (read on the caller's thread; a volatile publication
     *                where the detector runs on its own thread)
     */
    public RingSuspicion(RingConfig config, int self, Supplier<Membership> members) {
        this.config = config;
        this.self = self;
        this.members = members;
    }

    /** The silence after which {@code member}, watched in round {@code epoch}, is suspected. */
    public long timeoutNanos(long epoch, int member) {
        int c = epoch < 0 ? 0 : config.coordinatorOf(epoch);
        if (member == c && member != self) {
            if (config.membershipChanges()) {
                return RankedTimeout.timeoutForRank(members.get().rankAfter(self, c), config.suspectNanos());
            }
            return RankedTimeout.timeoutNanos(self, c, config.members(), config.suspectNanos());
        }
        return config.suspectNanos();
    }

    @Override
    public boolean suspects(long epoch, int member, long lastHeard, long now) {
        return now - lastHeard > timeoutNanos(epoch, member);
    }
}
