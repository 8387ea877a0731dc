package dev.parallax.paxos;

import dev.parallax.core.liveness.FailureDetector;
import dev.parallax.core.liveness.RankedTimeout;
import dev.parallax.core.membership.Membership;

import java.util.function.Supplier;

/**
 * When a follower suspects the leader of its view (seed 000 §V-C3): after hearing nothing from it
 * for its suspect timeout. The one place this rule lives: the core's {@link ViewMonitor} (ticks,
 * as the simulator drives it) and the runtime's {@link FailureDetector} thread both ask it.
 *
 * <p>Timeouts are staggered by rank so that the replica next in line (the leader of the next view)
 * suspects first, and the others then hear its Prepare instead of starting views of their own: a
 * follower's timeout is {@code suspect × (1 + rank/2)}, where rank 0 is the replica after the
 * leader ({@link RankedTimeout}, shared with other protocols). This replaces the randomized
 * timeouts other protocols use, which a deterministic core cannot draw.
 *
 * <p>Pure and immutable: thread-safe.
 */
public final class SuspicionRule implements FailureDetector.Rule {
    private final PaxosConfig config;
    private final int self;
    private final Supplier<Membership> members;

    /**
     * A rule for the cluster file's membership, which never changes.
     *
     * @param config the cluster's timeouts and size
     * @param self   the member applying the rule
     */
    public SuspicionRule(PaxosConfig config, int self) {
        this(config, self, fixed(Membership.initial(config.members())));
    }

    /**
     * @param members the membership in effect now (read on the caller's thread: the core publishes
     *                it, see {@link MultiPaxosCore#membership()})
     */
    public SuspicionRule(PaxosConfig config, int self, Supplier<Membership> members) {
        this.config = config;
        this.self = self;
        this.members = members;
    }

    private static Supplier<Membership> fixed(Membership m) {
        return () -> m;
    }

    @Override
    public int leaderOf(long view) {
        return Membership.leaderOf(view);
    }

    /**
     * This member's suspect timeout in {@code view}: {@code suspect × (1 + rank/2)}, its rank
     * counted among the voters after the leader.
     */
    public long timeoutNanos(long view) {
        int rank = members.get().rankAfter(self, Membership.leaderOf(view));
        return RankedTimeout.timeoutForRank(rank, config.suspectNanos());
    }

    @Override
    public boolean suspects(long view, long lastHeard, long now) {
        return now - lastHeard >= timeoutNanos(view);
    }
}
