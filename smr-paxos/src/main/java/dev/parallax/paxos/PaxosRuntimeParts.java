package dev.parallax.paxos;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.runtime.ProtocolRuntime;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntSupplier;

/**
 * What every broadcast that orders with a {@link MultiPaxosCore} on a {@link ProtocolRuntime} wires
 * around it, in one place: {@link PaxosBroadcast} (Multi-Paxos) and S-Paxos' broadcast, whose
 * composite core orders batch ids with an unchanged {@code MultiPaxosCore} (seed 002 (S-Paxos)
 * §IV-A, §IV-D), use it alike.
 *
 * <ul>
 *   <li><b>Meters</b> (tags {@code protocol=<name>}, {@code replica}): the gauges
 *       {@code parallax.paxos.view}, {@code parallax.paxos.leader} (1 while this replica leads),
 *       {@code parallax.paxos.first.undecided}; the counters {@code parallax.paxos.view.changes},
 *       {@code parallax.protocol.stepdowns} (check-quorum) and
 *       {@code parallax.protocol.prevotes{result=granted|refused}}. Registered by the constructor.</li>
 *   <li><b>The observer</b> ({@link #observe}, or {@link #observer} for a composite core): publishes
 *       the ordering core's view, leader, hints and counts after every work cycle of the protocol
 *       thread, and logs view changes and step-downs.</li>
 *   <li><b>The replay-handover rule</b>: a restarted replica hands its logged decisions to
 *       execution first, with its inbox closed; until the protocol stage keeps no undelivered
 *       decision the failure detector watches no view, so its clock starts only then.</li>
 *   <li><b>Failure detection</b> ({@link #failureDetection}): {@link SuspicionRule} on the view this
 *       replica follows, checked every quarter heartbeat. The core must be told
 *       ({@link MultiPaxosCore#detectFailuresExternally}).</li>
 * </ul>
 *
 * <p>Threads: {@link #observe} and the {@link #observer} only on the protocol thread (one writer);
 * {@link #view}, {@link #leaderHint}, {@link #isLeader} and the meters read the published volatile
 * fields from any thread, without blocking. Built once per broadcast, before its runtime.
 */
public final class PaxosRuntimeParts {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PaxosRuntimeParts.class);

    private final PaxosConfig config;
    private final int self;
    private final Counter viewChanges;
    private volatile long view = -1;
    /** The view whose leader this replica follows, or -1 while it leads or starts a view: what the detector watches. */
    private volatile long followedView = -1;
    private volatile int leaderHint = -1;
    private volatile int leader;
    private volatile long firstUndecided;
    private volatile long stepDowns;
    private volatile long preVotesGranted;
    private volatile long preVotesRefused;
    /** The membership in effect at the first undecided instance, as last published. */
    private volatile Membership membership;
    private volatile long membershipNotes;
    /** Protocol thread only: the local replay of logged decisions was handed to execution. */
    private boolean replayed;

    /**
     * Registers the meters of the broadcast named {@code name} (its {@code protocol} tag) for
     * member {@code self}.
     *
     * @throws IllegalArgumentException if {@code self} is not a member of {@code config}
     */
    public PaxosRuntimeParts(PaxosConfig config, int self, String name, MeterRegistry registry) {
        this.config = Objects.requireNonNull(config, "config");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(registry, "registry");
        if (self < 0 || self > Membership.MAX_ID) {
            throw new IllegalArgumentException("self must be 0.." + Membership.MAX_ID + ", got " + self);
        }
        this.self = self;
        this.membership = Membership.initial(config.members());
        String replica = Integer.toString(self);
        this.viewChanges = Counter.builder("parallax.paxos.view.changes")
                .description("views this replica moved to (a new leader or a new attempt)").tag("protocol", name).tag("replica", replica)
                .register(registry);
        Gauge.builder("parallax.paxos.view", this, x -> x.view)
                .description("the view this replica is in; the leader is the view's owner").tag("protocol", name).tag("replica", replica)
                .register(registry);
        Gauge.builder("parallax.paxos.leader", this, x -> x.leader).description("1 while this replica leads its view")
                .tag("protocol", name).tag("replica", replica).register(registry);
        Gauge.builder("parallax.paxos.first.undecided", this, x -> x.firstUndecided)
                .description("the first instance this replica has not learned decided").tag("protocol", name)
                .tag("replica", replica).register(registry);
        FunctionCounter.builder("parallax.protocol.stepdowns", this, x -> x.stepDowns)
                .description("views this replica led or started and left because it heard from no quorum within the "
                        + "suspect timeout (check-quorum)")
                .tag("protocol", name).tag("replica", replica).register(registry);
        FunctionCounter.builder("parallax.protocol.prevotes", this, x -> x.preVotesGranted)
                .description("pre-votes this replica answered: granted, or refused (it hears a working leader, leads, "
                        + "recovers, or the candidate is behind)")
                .tag("protocol", name).tag("replica", replica).tag("result", "granted").register(registry);
        FunctionCounter.builder("parallax.protocol.prevotes", this, x -> x.preVotesRefused)
                .description("pre-votes this replica answered: granted, or refused (it hears a working leader, leads, "
                        + "recovers, or the candidate is behind)")
                .tag("protocol", name).tag("replica", replica).tag("result", "refused").register(registry);
    }

    /** How long the detector parks between checks: a quarter heartbeat, at least 100 µs. */
    public static long detectorPeriod(PaxosConfig config) {
        return Math.max(config.heartbeatNanos() / 4, 100_000L);
    }

    /**
     * The longest the runtime may go without ticking the ordering core: half the shorter of the
     * heartbeat and retransmit periods (a composite core may need a shorter one for its own timers).
     */
    public long maxTickNanos() {
        return Math.min(config.heartbeatNanos(), config.retransmitNanos()) / 2;
    }

    /**
     * The runtime's failure detection: {@link SuspicionRule} on the view this replica follows as
     * {@link #observe} last published it (none before the replay was handed over).
     */
    public ProtocolRuntime.FailureDetection failureDetection() {
        return new ProtocolRuntime.FailureDetection(new SuspicionRule(config, self, () -> membership), () -> followedView,
                detectorPeriod(config));
    }

    /**
     * An observer for a runtime whose core {@code C} orders with the {@link MultiPaxosCore}
     * {@code ordering} returns (the identity for Multi-Paxos); see {@link #observe}.
     *
     * @param undelivered the runtime's protocol stage's {@code undelivered()}, read on the protocol thread
     */
    public <C> Consumer<C> observer(Function<? super C, MultiPaxosCore> ordering, IntSupplier undelivered) {
        Objects.requireNonNull(ordering, "ordering");
        Objects.requireNonNull(undelivered, "undelivered");
        return c -> observe(ordering.apply(c), undelivered.getAsInt());
    }

    /**
     * Publishes {@code core}'s state after a work cycle; protocol thread only.
     *
     * @param undelivered decisions the protocol stage still keeps for a lagging execution: while
     *                    the local replay is not yet handed over (this is above 0 since start), the
     *                    detector watches no view
     */
    public void observe(MultiPaxosCore core, int undelivered) {
        long v = core.view();
        if (v != view) {
            view = v;
            viewChanges.increment();
            LOG.info("replica {}: now in view {} (leader: replica {}{})", self, v, Membership.leaderOf(v),
                    core.isLeader() ? ", this one" : "");
        }
        if (!replayed) {
            // The local replay (every logged decision, handed out on the first step) keeps the
            // inbox closed until execution takes the rest: peers' messages wait, so the detector's
            // clock starts only when it is done.
            replayed = undelivered == 0;
        }
        followedView = replayed && core.isFollowing() ? v : -1;
        leaderHint = core.leaderHint();
        leader = core.isLeader() ? 1 : 0;
        firstUndecided = core.firstUndecided();
        if (core.stepDowns() != stepDowns) {
            stepDowns = core.stepDowns();
            LOG.warn("replica {}: stepped down as leader of view {}: heard from no quorum within the "
                    + "suspect timeout ({} ms)", self, v, config.suspectNanos() / 1_000_000);
        }
        preVotesGranted = core.preVotesGranted();
        preVotesRefused = core.preVotesRefused();
        publishMembership(core);
    }

    /** Publishes the membership in effect when it changed, and logs decided changes that were ignored. */
    private void publishMembership(MultiPaxosCore core) {
        Membership now = core.membership();
        if (!now.equals(membership)) {
            LOG.info("replica {}: membership now {}", self, now.describe());
            membership = now;
        }
        long notes = core.membershipNotes();
        if (notes != membershipNotes) {
            membershipNotes = notes;
            LOG.warn("replica {}: {}", self, core.lastMembershipNote());
        }
    }

    /** The membership in effect at this replica's first undecided instance, as last published. Any thread. */
    public Membership membership() {
        return membership;
    }


    /** The view last published, -1 before the first work cycle. Any thread. */
    public long view() {
        return view;
    }

    /** The leader this replica believes in as last published, -1 if none is known. Any thread. */
    public int leaderHint() {
        return leaderHint;
    }

    /** Whether this replica led its view (Phase 1 done) at the last work cycle. Any thread. */
    public boolean isLeader() {
        return leader == 1;
    }

    /** The view whose leader the failure detector watches, -1 for none. Any thread. */
    public long followedView() {
        return followedView;
    }
}
