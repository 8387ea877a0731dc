package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;

import java.util.ArrayList;
import java.util.List;

/**
 * Catch-up (rule C6; seed 003 (Ring Paxos) §3.3.4): the asking side — once a decision known above
 * the first undecided instance (or a decided body missing) has stayed so for one {@code ring.catchup}
 * period (B7: what a heartbeat reports is usually still on its way), a {@code CatchUpQuery} every
 * {@code ring.catchup} to the variant's target for the attempt (again at once after a reply that
 * taught something) — and the serving side: decided values in the asked range from the learner,
 * plus the highest vote for each instance not known decided (§3.3.4 case (b): id known, body
 * missing), cut at {@code ring.catchup.max.instances}/{@code .bytes} like a Phase 1 page (the first
 * entry always goes). Follows Multi-Paxos' catch-up cut. The replier's trim point travels as
 * {@code firstAvailable}; below it the asker needs a snapshot.
 *
 * <p>Not thread-safe: the core's driver thread only.
 */
final class RingCatchUp {
    private final RingConfig config;
    private final int self;
    private long lastQuery = Long.MIN_VALUE;
    /** When the current gap was first seen (Long.MIN_VALUE: none), and what was known decided then. */
    private long gapSince = Long.MIN_VALUE;
    private long gapKnown;
    private int attempt;
    private long queries;
    private long replies;

    RingCatchUp(RingConfig config, int self) {
        this.config = config;
        this.self = self;
    }

    /** Asks a peer for what the learner lacks, if anything and if due ({@code force}: at once). */
    void tick(long now, boolean force, long round, RingLearner learner, Variant variant,
              Effects<RingWire, RingRecord, RingValue> out) {
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
        if (target < 0 || target >= config.members() || target == self) {
            return;
        }
        lastQuery = now;
        queries++;
        out.send(target, new RingMessage.CatchUpQuery(Math.max(0, round), first,
                Math.min(known, first + config.catchUpMaxInstances())));
    }

    /** Answers {@code q}; a recovering member serves decided values only (its votes may be lost). */
    void serve(int from, RingMessage.CatchUpQuery q, long round, RingLearner learner, RingAcceptor acceptor,
               boolean recovering, Effects<RingWire, RingRecord, RingValue> out) {
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

    long queries() {
        return queries;
    }

    long replies() {
        return replies;
    }
}
