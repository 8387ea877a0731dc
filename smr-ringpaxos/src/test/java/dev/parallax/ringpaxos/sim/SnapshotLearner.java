package dev.parallax.ringpaxos.sim;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipHistory;
import dev.parallax.core.testkit.multicast.LogicalMerge;
import dev.parallax.core.testkit.multicast.MulticastDeliveryChecker;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.RingValue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The delivery side of a {@link MultiRingProcess} in a run with snapshots, as a replica's
 * {@code MulticastBroadcast} over the rings' {@code RingPaxosBroadcast}s has it: one learner (a
 * {@link LogicalMerge} of one subscription, the replica's state machine being the sequence it
 * delivered), each ring's decided values numbered and kept from the last compaction on
 * ({@link RingNumbering}, {@code DecidedStreams}' counterpart), and each ring's delivered member
 * history ({@code RingDeliveredMembership}'s copy, every decided instance applied in order).
 *
 * <p>{@link #take} forms a snapshot ({@link MultiRingSnapshots.Snap}): the sequence, the merge
 * position after the last delivery, and per ring the instance the position resumes it at, the
 * numbering there and the ring's member history; the values below those instances are forgotten
 * (the process compacts its rings there). {@link #install} moves the learner to a snapshot ahead of
 * it: the rings the snapshot covers beyond what was decided here resume at the snapshot's
 * instance (the process skips its cores there, handing them the ring's member history), the others
 * are fed again from what is kept; the learner's record in the checker gets the messages the
 * snapshot's state holds beyond what it delivered, so agreement, exactly-once and the order stay
 * checked over the whole state.
 *
 * <p>The merge position is the canonical one after the last delivery (stream s, index k): k + 1 on
 * s, and on every other stream the first index whose key (⌊index / M⌋, stream) comes after (⌊k / M⌋,
 * s). The merge's own cursors are at or past it, with only gaps and messages of other groups
 * between, so resuming there delivers the same messages in the same order.
 *
 * <p>Owned by the simulation thread.
 */
final class SnapshotLearner {
    private final MultiRingSimulation.World world;
    private final int rings;
    private final int roundLength;
    private final long subscription;
    private final LogicalMerge.Flaw flaw;
    /** Per ring its stream in the merge, -1 if not merged. */
    private final int[] streamOfRing;
    private final int streams;
    private final RingNumbering[] numbering;
    private final MembershipHistory[] delivered;
    private final MulticastDeliveryChecker.Learner record;
    private LogicalMerge merge;
    /** The position the merge started from (per stream). */
    private long[] start;
    /** Where the merge's buffered messages are: id to {stream, index}. */
    private final Map<Long, long[]> where = new HashMap<>();
    private int lastStream = -1;
    private long lastIndex;

    /**
     * A learner of {@code subscription} over rings configured {@code configs} (the last one the
     * global ring), starting at the beginning, its deliveries recorded in {@code record}.
     */
    SnapshotLearner(MultiRingSimulation.World world, RingConfig[] configs, int roundLength, long subscription,
                    LogicalMerge.Flaw flaw, MulticastDeliveryChecker.Learner record) {
        this.world = world;
        this.rings = configs.length;
        this.roundLength = roundLength;
        this.subscription = subscription;
        this.flaw = flaw;
        this.record = record;
        this.streamOfRing = new int[rings];
        int s = 0;
        for (int r = 0; r < rings; r++) {
            boolean merged = r == rings - 1 || (subscription & (1L << r)) != 0;
            streamOfRing[r] = merged ? s++ : -1;
        }
        this.streams = s;
        this.numbering = new RingNumbering[rings];
        this.delivered = new MembershipHistory[rings];
        for (int r = 0; r < rings; r++) {
            numbering[r] = new RingNumbering();
            delivered[r] = new MembershipHistory(Membership.initial(configs[r].members()), configs[r].window());
        }
        restart(new long[streams]);
    }

    /** A new merge at {@code position} (per stream), nothing buffered. */
    private void restart(long[] position) {
        merge = new LogicalMerge(streams, roundLength, subscription, flaw);
        start = position.clone();
        for (int s = 0; s < streams; s++) {
            if (position[s] > 0) {
                merge.skip(s, position[s]);
            }
        }
        where.clear();
        lastStream = -1;
    }

    /** Ring {@code r} decided {@code chosen} at {@code instance} (the next one): numbered, applied to its member history, fed. */
    void decided(int r, long instance, RingValue.Chosen chosen) {
        RingNumbering.Item item = numbering[r].number(instance, chosen);
        boolean config = chosen.vid().isConfig();
        delivered[r].apply(instance, config, config ? chosen.bytes() : null);
        feed(r, item);
    }

    private void feed(int r, RingNumbering.Item item) {
        int s = streamOfRing[r];
        if (s < 0) {
            return;
        }
        switch (item.kind()) {
            case MESSAGE, COPY -> {
                if (merge.decidedNext(s) != item.index()) {
                    throw new AssertionError("numbering: ring " + r + " numbers instance " + item.instance() + " "
                            + item.index() + ", the merge of " + record.name() + " " + merge.decidedNext(s));
                }
                if (item.kind() == RingNumbering.Kind.MESSAGE) {
                    merge.message(s, item.id(), item.groups());
                    where.put(item.id(), new long[] {s, item.index()});
                } else {
                    merge.skip(s, item.index() + 1); // a copy is a gap of one index
                }
            }
            case SKIP -> merge.skip(s, item.index());
            case NOOP -> merge.noop(s);
        }
    }

    /** Delivers what the merge can (to the checker, at {@code now}); how many messages. */
    int poll(long now) {
        int n = 0;
        for (long[] m = merge.poll(); m != null; m = merge.poll()) {
            long[] at = where.remove(m[0]);
            lastStream = (int) at[0];
            lastIndex = at[1];
            world.checker.delivered(record, m[0], now);
            n++;
        }
        return n;
    }

    /** The merge position after the last delivery (canonical; see the class comment), per stream. */
    long[] position() {
        long[] p = start.clone();
        if (lastStream >= 0) {
            long round = lastIndex / roundLength;
            for (int s = 0; s < streams; s++) {
                long next = s == lastStream ? lastIndex + 1 : s < lastStream ? (round + 1) * roundLength : round * roundLength;
                p[s] = Math.max(p[s], next);
            }
        }
        return p;
    }

    /**
     * A snapshot of {@code process} now; forgets each ring's values below where the snapshot resumes
     * it (the process compacts its rings there: {@link MultiRingSnapshots.Snap#resume}).
     */
    MultiRingSnapshots.Snap take(int process, long now) {
        long[] p = position();
        long[] resume = new long[rings];
        long[] index = new long[rings];
        List<Set<Long>> seen = new ArrayList<>();
        List<byte[]> states = new ArrayList<>();
        for (int r = 0; r < rings; r++) {
            int s = streamOfRing[r];
            resume[r] = s < 0 ? -1 : numbering[r].resumeOf(p[s]);
            index[r] = s < 0 ? -1 : numbering[r].indexAt(resume[r]);
            seen.add(s < 0 ? null : Set.copyOf(numbering[r].seenAt(resume[r])));
            states.add(delivered[r].encode());
        }
        for (int r = 0; r < rings; r++) {
            if (resume[r] >= 0) {
                numbering[r].trimBelow(resume[r]);
            }
        }
        return new MultiRingSnapshots.Snap(process, now, List.copyOf(record.order()), p, resume, index, seen, states);
    }

    /**
     * Moves to snapshot {@code s}, whose learner delivered more than this one (a peer's, or at a
     * restart the process' own): the checker's record gets the messages of the
     * snapshot's sequence beyond what it has; rings the snapshot resumes beyond what was decided
     * here resume there (their member history restored from the snapshot unless
     * {@code dropStates}), the others feed the new merge again from what is kept.
     *
     * @return per ring the instance the process' core must skip to, -1 for none
     * @throws IllegalArgumentException if the snapshot is not ahead of this learner
     * @throws AssertionError           if it lies below what is kept, or its state does not extend this
     *                                  learner's deliveries (agreement)
     */
    long[] install(MultiRingSnapshots.Snap s, boolean dropStates, long now) {
        if (s.delivered() <= record.order().size()) {
            throw new IllegalArgumentException("snapshot of " + s.delivered() + " deliveries, not ahead of "
                    + record.order().size());
        }
        long[] skip = new long[rings];
        for (int r = 0; r < rings; r++) {
            long at = s.resume()[r];
            skip[r] = -1;
            if (at < 0 || streamOfRing[r] < 0) {
                continue;
            }
            if (at > numbering[r].next()) {
                numbering[r].resumeAt(at, s.index()[r], s.seen().get(r));
                if (!dropStates) {
                    delivered[r].restore(ByteBuffer.wrap(s.states().get(r)));
                }
                skip[r] = at;
            } else if (at < numbering[r].base()) {
                throw new AssertionError(record.name() + ": snapshot of process " + s.process() + " resumes ring " + r
                        + " at " + at + ", below what is kept here (" + numbering[r] + ")");
            } else if (numbering[r].indexAt(at) != s.index()[r] || !numbering[r].seenAt(at).equals(s.seen().get(r))) {
                throw new AssertionError("numbering: ring " + r + " at instance " + at + " numbers " + s.index()[r]
                        + " in the snapshot of process " + s.process() + ", " + numbering[r].indexAt(at) + " at "
                        + record.name() + " (or their duplicate records differ)");
            }
        }
        for (int k = record.order().size(); k < s.sequence().size(); k++) {
            world.checker.delivered(record, s.sequence().get(k), now);
        }
        long[] p = new long[streams];
        for (int r = 0; r < rings; r++) {
            if (streamOfRing[r] >= 0) {
                p[streamOfRing[r]] = s.position()[streamOfRing[r]];
            }
        }
        restart(p);
        for (int r = 0; r < rings; r++) {
            if (skip[r] < 0 && streamOfRing[r] >= 0) {
                for (RingNumbering.Item item : numbering[r].from(s.resume()[r])) {
                    feed(r, item);
                }
            }
        }
        return skip;
    }

    /** The instance ring {@code r}'s next decided value has here. */
    long next(int r) {
        return numbering[r].next();
    }

    MulticastDeliveryChecker.Learner record() {
        return record;
    }

    int buffered() {
        return merge.buffered();
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(record.toString()).append(" buffered ").append(merge.buffered());
        for (int r = 0; r < rings; r++) {
            sb.append(" r").append(r).append(' ').append(numbering[r]);
        }
        return sb.toString();
    }
}
