package dev.parallax.core.liveness;

import dev.parallax.core.stage.Stage;
import dev.parallax.core.time.Clock;

import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * What {@link FailureDetector} (one leader per view) and {@link MemberDetector} (every watched
 * member of an epoch) share: the stage name, the arrival stamps and the clock they are read from,
 * the epoch (view) last seen and when it was first seen, and the count of suspicions handed over.
 * "Last heard" from a member is the later of its {@link PeerLiveness} stamp and the moment the
 * current epoch was first seen (a new epoch starts every suspicion clock over); for this member
 * itself only the latter counts.
 *
 * <p>Threads: {@code doWork} and every protected method on the detector's thread only;
 * {@link #suspicions()} and {@link #name()} from any thread. Never blocks.
 */
abstract class SilenceDetector implements Stage {
    private final String name;
    private final int self;
    private final PeerLiveness liveness;
    private final Clock clock;
    private final LongAdder suspicions = new LongAdder();
    private long epoch = -1;
    private long since;

    SilenceDetector(String name, int self, PeerLiveness liveness, Clock clock) {
        this.name = Objects.requireNonNull(name, "name");
        this.self = self;
        this.liveness = Objects.requireNonNull(liveness, "liveness");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public final String name() {
        return name;
    }

    /** Suspicions handed over so far. Thread-safe. */
    public final long suspicions() {
        return suspicions.sum();
    }

    /** This member's id. */
    final int self() {
        return self;
    }

    /** How many members the stamps cover. */
    final int peers() {
        return liveness.peers();
    }

    /** The epoch last {@link #enter entered}, -1 before the first. */
    final long epoch() {
        return epoch;
    }

    /** The clock's time now. */
    final long now() {
        return clock.nanoTime();
    }

    /**
     * Makes {@code e} the current epoch, first seen at {@code now}, unless it is already.
     *
     * @return whether {@code e} is new
     */
    final boolean enter(long e, long now) {
        if (e == epoch) {
            return false;
        }
        epoch = e;
        since = now;
        return true;
    }

    /** When {@code member} was last heard from, in the current epoch's terms (see the class comment). */
    final long lastHeard(int member) {
        return member == self ? since : Math.max(since, liveness.lastHeard(member));
    }

    /** Counts one suspicion handed over. */
    final void counted() {
        suspicions.increment();
    }
}
