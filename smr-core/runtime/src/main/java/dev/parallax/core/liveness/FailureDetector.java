package dev.parallax.core.liveness;

import dev.parallax.core.time.Clock;

import java.util.Objects;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * The FailureDetector stage (JPaxos' FailureDetector thread, seed 000 (JPaxos staged replica) §V-C3): run on its
 * own {@link dev.parallax.core.stage.StageRunner} with a low-frequency park (about a quarter of
 * the heartbeat interval), each {@link #doWork()} reads the view whose leader this replica
 * follows, looks up when that leader was last heard from in the {@link PeerLiveness} stamps, and,
 * when the protocol's {@link Rule} says that is too long ago, hands {@code view} to the suspicion
 * sink once.
 *
 * <p>"Last heard" is the later of the leader's stamp and the moment this detector first saw the
 * view (a new view starts the suspicion clock over, as in the core's own monitor). In a view this
 * replica leads, only the latter counts: a restarted replica that is not yet leading its own view
 * must still give up on it after the timeout.
 *
 * <p>Duplicates are coalesced: a view is handed over at most once. The sink must accept every
 * suspicion it is given (the protocol stage keeps one pending view, the highest); the protocol
 * checks that it still is in that view and still follows before acting on it.
 *
 * <p>Threads: {@code doWork} on the detector's thread only; {@link #suspicions()} (views suspected
 * so far) from any thread. Never blocks. The stamps, clock and view bookkeeping are
 * {@link SilenceDetector}'s, shared with {@link MemberDetector}.
 */
public final class FailureDetector extends SilenceDetector {

    /**
     * A protocol's pure suspicion rule, shared by its deterministic core (driven by the simulator)
     * and this detector. Implementations must be immutable and thread-safe.
     */
    public interface Rule {
        /** The member leading {@code view}. */
        int leaderOf(long view);

        /** Whether a follower of {@code view} that last heard from its leader at {@code lastHeard} suspects it at {@code now}. */
        boolean suspects(long view, long lastHeard, long now);
    }

    private final Rule rule;
    private final LongSupplier currentView;
    private final LongConsumer sink;
    private long suspected = -1;

    /**
     * @param name        stage (and thread) name
     * @param self        this replica's member id
     * @param liveness    the stamps the transport writes
     * @param rule        the protocol's suspicion rule
     * @param currentView the view whose leader this replica follows, as the protocol thread last
     *                    published it; negative before it started and while it leads or starts a view
     * @param sink        takes a suspected view; must not block and must not drop it
     * @param clock       the same clock the stamps are read from
     */
    public FailureDetector(String name, int self, PeerLiveness liveness, Rule rule, LongSupplier currentView,
                           LongConsumer sink, Clock clock) {
        super(name, self, liveness, clock);
        this.rule = Objects.requireNonNull(rule, "rule");
        this.currentView = Objects.requireNonNull(currentView, "currentView");
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    /**
     * Checks the current view's leader once.
     *
     * @return 1 if a suspicion was handed over, else 0 (so the runner parks until the next check)
     */
    @Override
    public int doWork() {
        long v = currentView.getAsLong();
        if (v < 0) {
            return 0;
        }
        long now = now();
        enter(v, now);
        if (v <= suspected) {
            return 0;
        }
        int leader = rule.leaderOf(v);
        if (!rule.suspects(v, lastHeard(leader), now)) {
            return 0;
        }
        suspected = v;
        counted();
        sink.accept(v);
        return 1;
    }
}
