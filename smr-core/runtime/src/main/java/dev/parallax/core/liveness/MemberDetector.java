package dev.parallax.core.liveness;

import dev.parallax.core.time.Clock;

import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A failure detector for protocols that depend on every member of a set, not only on a leader: a
 * ring, where any silent member stops the ring (seed 003 (Ring Paxos) §3.3.6: a process suspected
 * of failure is removed by laying out a new ring). Run on its own
 * {@link dev.parallax.core.stage.StageRunner} with a low-frequency park like
 * {@link FailureDetector}, each {@link #doWork()} reads the protocol's current epoch and the mask
 * of members it watches in it, and hands every watched member the protocol's {@link Rule} finds
 * silent too long to the {@link Sink}.
 *
 * <p>"Last heard" is the later of the member's {@link PeerLiveness} stamp and the moment this
 * detector first saw the epoch (a new epoch starts every suspicion clock over). An (epoch, member)
 * is handed over once per time-out of silence: a member still silent a full time-out after it was
 * handed over, in the same epoch, is handed over again — what the protocol did about the first
 * suspicion may have come to nothing (a candidate's Phase 1 that reached no quorum leaves it in the
 * epoch whose coordinator is gone), and a member that waits for an epoch to change would otherwise
 * wait for ever, as a core's own ticks never do (their suspicion clock starts again). This member
 * itself is never suspected; a lower epoch than one already seen is ignored, as is a negative one
 * (not started: a protocol suspects before its first epoch on its own).
 *
 * <p>Threads: {@code doWork} on the detector's thread only; {@link #suspicions()} ((epoch, member)
 * suspicions handed over so far) from any thread. Never blocks. The stamps, clock and epoch
 * bookkeeping are {@link SilenceDetector}'s, shared with {@link FailureDetector}.
 */
public final class MemberDetector extends SilenceDetector {

    /** A protocol's pure rule; implementations must be immutable and thread-safe. */
    @FunctionalInterface
    public interface Rule {
        /** Whether {@code member}, watched in {@code epoch} and last heard from at {@code lastHeard}, is suspected at {@code now}. */
        boolean suspects(long epoch, int member, long lastHeard, long now);
    }

    /** Where suspicions go; must not block and must not drop one (see {@code ProtocolStage.suspectMember}). */
    @FunctionalInterface
    public interface Sink {
        void suspect(long epoch, int member);
    }

    private final Rule rule;
    private final LongSupplier epoch;
    private final LongSupplier watchedMask;
    private final Sink sink;
    private long suspectedMask;
    /** When each member in {@link #suspectedMask} was last handed over (its next suspicion clock starts there). */
    private final long[] handedAt = new long[Long.SIZE];

    /**
     * @param name        stage (and thread) name
     * @param self        this member's id (never suspected)
     * @param liveness    the stamps the transport writes
     * @param rule        the protocol's suspicion rule
     * @param epoch       the protocol's current epoch as last published; negative before it started
     * @param watchedMask the members watched in that epoch, bit {@code m} for member {@code m} (members 0..63)
     * @param sink        takes each suspicion
     * @param clock       the same clock the stamps are read from
     */
    public MemberDetector(String name, int self, PeerLiveness liveness, Rule rule, LongSupplier epoch,
                          LongSupplier watchedMask, Sink sink, Clock clock) {
        super(name, self, liveness, clock);
        this.rule = Objects.requireNonNull(rule, "rule");
        this.epoch = Objects.requireNonNull(epoch, "epoch");
        this.watchedMask = Objects.requireNonNull(watchedMask, "watchedMask");
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    /**
     * Checks every watched member of the current epoch once (a member handed over already counts
     * as heard when it was).
     *
     * @return how many suspicions were handed over (0 lets the runner park until the next check)
     */
    @Override
    public int doWork() {
        long e = epoch.getAsLong();
        if (e < 0 || e < epoch()) {
            return 0;
        }
        long now = now();
        if (enter(e, now)) {
            suspectedMask = 0;
        }
        long open = watchedMask.getAsLong();
        int handed = 0;
        while (open != 0) {
            int member = Long.numberOfTrailingZeros(open);
            open &= open - 1;
            if (member == self() || member >= peers()) {
                continue;
            }
            long heard = (suspectedMask & (1L << member)) != 0
                    ? Math.max(lastHeard(member), handedAt[member]) : lastHeard(member);
            if (rule.suspects(e, member, heard, now)) {
                suspectedMask |= 1L << member;
                handedAt[member] = now;
                counted();
                sink.suspect(e, member);
                handed++;
            }
        }
        return handed;
    }
}
