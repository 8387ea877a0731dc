package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Catch-up (rule C6; seed 003 (Ring Paxos) §3.3.4): the asking side — once a decision known above
 * the first undecided instance (or a decided body missing) has stayed so for one {@code ring.catchup}
 * period (B7: what a heartbeat reports is usually still on its way), a {@code CatchUpQuery} every
 * {@code ring.catchup} to the variant's target for the attempt (again at once after a reply that
 * taught something) — and the serving side: decided values in the asked range from the learner,
 * plus the highest vote for each instance not known decided (§3.3.4 case (b): id known, body
 * missing), cut at {@code ring.catchup.max.instances}/{@code .bytes} like a Phase 1 page (the first
 * entry always goes). Follows Multi-Paxos' catch-up cut. The replier's trim point travels as
 * {@code firstAvailable}; below it the asker needs a snapshot. And the asker's handling of a reply:
 * its decisions go to the learner, its bodies to the value cache, and a reply whose
 * {@code firstAvailable} lies above what this member can deliver asks the driver for a snapshot.
 *
 * <p>Owns the query pace, the current gap and the attempt count, and the counters
 * {@code catchup.queries}, {@code catchup.replies} and {@code snapshots.needed}. The learner, the
 * acceptor, the value cache and the coordinator's bookkeeping own what a reply changes; delivery
 * stays with {@link RingEngine}.
 *
 * <p>Not thread-safe: confined to the ring's protocol thread (the core's driver); never blocks.
 */
final class RingCatchUp {
    private final RingConfig config;
    private final int self;
    private final RingLearner learner;
    private final RingAcceptor acceptor;
    private final ValueCache cache;
    private final Coordinator coordinator;
    private final RingPaxosCore.Observer observer;
    private long lastQuery = Long.MIN_VALUE;
    /** When the current gap was first seen (Long.MIN_VALUE: none), and what was known decided then. */
    private long gapSince = Long.MIN_VALUE;
    private long gapKnown;
    private int attempt;
    private long queries;
    private long replies;
    private long snapshotsNeeded;

    /**
     * Who may be asked (G8): a member of the sets from the first undecided instance on as this
     * member knows them, or any id heard within the suspect time-out ({@link #heard}): a learner far
     * behind does not know the members that replaced those it knows.
     */
    private final RingGroup group;
    private final java.util.function.IntSupplier heard;

    RingCatchUp(RingConfig config, int self, RingLearner learner, RingAcceptor acceptor, ValueCache cache,
                Coordinator coordinator, RingPaxosCore.Observer observer, RingGroup group,
                java.util.function.IntSupplier heard) {
        this.group = group;
        this.heard = heard;
        this.config = config;
        this.self = self;
        this.learner = learner;
        this.acceptor = acceptor;
        this.cache = cache;
        this.coordinator = coordinator;
        this.observer = observer;
    }

    /** Asks a peer for what the learner lacks, if anything and if due ({@code force}: at once). */
    void tick(long now, boolean force, long round, Variant variant, Effects<RingWire, RingRecord, RingValue> out) {
        long first = learner.firstUndecided();
        long known = learner.knownDecidedBelow();
        if (known <= first) {
            attempt = 0;
            gapSince = Long.MIN_VALUE;
            return;
        }
        if (gapSince == Long.MIN_VALUE || first >= gapKnown) {
            // A new gap (or the old one closed while decisions moved on): in a pipeline the ring or
            // the decision datagram is usually still carrying what a heartbeat already reports.
            gapSince = now;
            gapKnown = known;
        }
        if (config.members() == 1 || (!force && (now - gapSince < config.catchUpNanos()
                || (lastQuery != Long.MIN_VALUE && now - lastQuery < config.catchUpNanos())))) {
            return;
        }
        int target = variant.catchUpTarget(attempt++);
        if (target < 0 || target == self || (!group.isMember(target, first) && (heard.getAsInt() & (1 << target)) == 0)) {
            return;
        }
        lastQuery = now;
        queries++;
        out.send(target, new RingMessage.CatchUpQuery(Math.max(0, round), first,
                Math.min(known, first + config.catchUpMaxInstances())));
    }

    /** Answers {@code q}; a recovering member serves decided values only (its votes may be lost). */
    void serve(int from, RingMessage.CatchUpQuery q, long round, boolean recovering,
               Effects<RingWire, RingRecord, RingValue> out) {
        long firstAvailable = learner.trimmedBelow();
        List<DecisionEntry> decided = learner.range(q.from(), q.to(), config.catchUpMaxInstances(),
                config.catchUpMaxBytes());
        List<Phase2Entry> values = new ArrayList<>();
        if (!recovering) {
            long bytes = 0;
            for (Vote v : acceptor.votesIn(Math.max(q.from(), firstAvailable), q.to())) {
                if (values.size() >= config.catchUpMaxInstances()
                        || (!values.isEmpty() && bytes + v.value().remaining() > config.catchUpMaxBytes())) {
                    break;
                }
                if (!learner.isDecided(v.instance())) {
                    values.add(new Phase2Entry(v.instance(), v.vid(), v.value()));
                    bytes += v.value().remaining();
                }
            }
        }
        replies++;
        out.send(from, new RingMessage.CatchUpReply(Math.max(0, round), firstAvailable, decided, values));
    }

    /**
     * Takes in a reply: its decisions (a body missing from the reply is looked up with
     * {@code bodies}) and the bodies of the votes it carries. Returns whether it taught anything.
     */
    boolean absorb(RingMessage.CatchUpReply r, Function<ValueId, ByteBuffer> bodies) {
        boolean taught = false;
        for (DecisionEntry d : r.decided()) {
            ByteBuffer body = d.value() != null ? d.value() : bodies.apply(d.vid());
            boolean known = learner.isDecided(d.instance());
            if (learner.learn(d.instance(), d.vid(), body)) {
                taught = true;
                if (!known) {
                    observer.decided(d.instance(), d.vid(), body);
                    coordinator.decided(d.instance(), d.vid());
                }
            }
        }
        for (Phase2Entry v : r.values()) {
            if (cache.get(v.vid()) == null && cache.remember(v.vid(), v.value())) {
                taught = true;
            }
        }
        return taught;
    }

    /**
     * After a reply of {@code from} was absorbed and what it made deliverable delivered: a snapshot
     * is needed if the peer trimmed the first instance this member cannot deliver, else a reply
     * that {@code taught} something is followed by the next query at once.
     */
    void afterReply(int from, RingMessage.CatchUpReply r, boolean taught, long now, long round, Variant variant,
                    Effects<RingWire, RingRecord, RingValue> out) {
        long first = learner.firstUndecided();
        if (r.firstAvailable() > first) {
            // B8: after delivery, `first` is not deliverable here (undecided, or decided id-only with
            // its body missing); the peer trimmed it: only a snapshot brings it.
            snapshotsNeeded++;
            out.snapshotNeeded(from, r.firstAvailable());
        } else if (taught) {
            tick(now, true, round, variant, out);
        }
    }

    long queries() {
        return queries;
    }

    long replies() {
        return replies;
    }

    long snapshotsNeeded() {
        return snapshotsNeeded;
    }
}
