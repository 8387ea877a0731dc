package dev.parallax.core.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.MulticastListener;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Subscription;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.time.Clock;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Builds a {@link StreamMulticast} ({@link StreamMulticast#builder()}): the processes, the groups
 * and their streams, each stream's members, the {@link StreamFactory}, the strategies
 * ({@link Routing}, {@link SkipPolicy}, {@link Numbering}) and the limits; {@link #build} checks
 * them, builds the streams and starts everything.
 *
 * <p>Mutable, not thread-safe: used by one thread. {@link #build} does not block beyond starting
 * the streams.
 */
public final class StreamMulticastBuilder {

    int self = -1;
    int members;
    GroupSet groups;
    StreamFactory factory;
    Transport<MulticastForward> transport;
    Routing routing = Routing.LEADER;
    SkipPolicy skips = SkipPolicy.DEMAND;
    Numbering numbering = Numbering.INSTANCE;
    Clock clock = SystemClock.INSTANCE;
    MeterRegistry registry = new SimpleMeterRegistry();
    int roundLength = 1;
    int credits = 64;
    int retention = 4096;
    Duration period = Duration.ofMillis(1);
    Duration forgetAfter = Duration.ofSeconds(5);
    Duration resendAfter = Duration.ofMillis(200);
    long firstSequence = System.currentTimeMillis() << StreamMulticast.SEQUENCE_RUN_SHIFT;
    final List<Initial> initialSubscriptions = new ArrayList<>();
    private java.util.Map<Integer, byte[]> streamStates = java.util.Map.of();

    private record Initial(GroupSet groups, MulticastPosition from, MulticastListener listener) {
    }
    final Map<Integer, Integer> groupStreams = new HashMap<>();
    final Map<Integer, int[]> streamMembers = new HashMap<>();
    StreamLayout layout;

    StreamMulticastBuilder() {
    }

    /** This process's member id, the same in every stream. */
    public StreamMulticastBuilder self(int self) {
        this.self = self;
        return this;
    }

    /**
     * How many processes there are (ids 0..members-1, the origins of messages); each stream runs
     * on every one of them unless {@link #streamMembers} names its members.
     */
    public StreamMulticastBuilder members(int members) {
        this.members = members;
        return this;
    }

    /** The groups offered. */
    public StreamMulticastBuilder groups(GroupSet groups) {
        this.groups = groups;
        return this;
    }

    /**
     * The processes that run stream {@code stream} (a stream id of the offered groups, see
     * {@link #groupStream}, or {@link MulticastPosition#GLOBAL_STREAM}); default every process.
     * This process builds, starts and receives only the streams it is a member of, may subscribe
     * only to groups whose streams it runs (and the global stream), and forwards its messages
     * for another stream to a member of it (see the class comment). Replaces an earlier call
     * for the same stream.
     */
    public StreamMulticastBuilder streamMembers(int stream, int... processes) {
        streamMembers.put(stream, processes.clone());
        return this;
    }

    /**
     * Orders group {@code group}'s messages in stream {@code stream} (0..{@link
     * dev.parallax.core.GroupSet#MAX_GROUP}); default the group's own stream, id {@code group}.
     * Groups sharing a stream share its order; a message to groups of one stream only is ordered
     * in it, a message to groups of several in the global stream.
     */
    public StreamMulticastBuilder groupStream(int group, int stream) {
        groupStreams.put(group, stream);
        return this;
    }

    /**
     * Builds each stream's broadcast that this process runs (one per distinct stream of the
     * offered groups, and the global one when there are several).
     */
    public StreamMulticastBuilder streams(StreamFactory factory) {
        this.factory = factory;
        return this;
    }

    /**
     * Where messages for another process's stream leader, or for a stream this process does not
     * run, travel (and, for the latter, the members' decided notices back); the multicast owns
     * and closes it. Addressed by process id. Required with {@link Routing#LEADER} and when
     * this process does not run every stream; optional otherwise.
     */
    public StreamMulticastBuilder forwardTransport(Transport<MulticastForward> transport) {
        this.transport = transport;
        return this;
    }

    /** Where a message is proposed; default {@link Routing#LEADER}. */
    public StreamMulticastBuilder routing(Routing routing) {
        this.routing = Objects.requireNonNull(routing);
        return this;
    }

    /** Who decides skips for idle streams; default {@link SkipPolicy#DEMAND}. */
    public StreamMulticastBuilder skips(SkipPolicy skips) {
        this.skips = Objects.requireNonNull(skips);
        return this;
    }

    /** How the merge numbers a stream's values; default {@link Numbering#INSTANCE}. */
    public StreamMulticastBuilder numbering(Numbering numbering) {
        this.numbering = Objects.requireNonNull(numbering);
        return this;
    }

    /** Time for resends and skip expiry; default {@link SystemClock}. */
    public StreamMulticastBuilder clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock);
        return this;
    }

    /** Where the multicast's counters go; default a private simple registry. */
    public StreamMulticastBuilder meterRegistry(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry);
        return this;
    }

    /** M: instances the merge takes from each stream in turn; default 1 (as the thesis' experiments). */
    public StreamMulticastBuilder roundLength(int m) {
        this.roundLength = m;
        return this;
    }

    /**
     * Messages per stream an origin may have accepted and not yet seen decided (kept for
     * resends meanwhile); default 64, at most {@code OriginSequences.WINDOW} (1024).
     */
    public StreamMulticastBuilder credits(int n) {
        this.credits = n;
        return this;
    }

    /** Messages per stream kept for subscriptions that start later or resume; default 4096. */
    public StreamMulticastBuilder retention(int n) {
        this.retention = n;
        return this;
    }

    /** How long the sequencer parks when nothing wakes it; default 1 ms. */
    public StreamMulticastBuilder period(Duration d) {
        this.period = Objects.requireNonNull(d);
        return this;
    }

    /**
     * The last resort, never used while the streams run from their start: after this long,
     * skips this process proposed as a leader and did not see decided are presumed lost (it
     * lost the leadership), and this process's messages still outstanding in a stream that
     * continued from a snapshot here are given up (counted in
     * {@code parallax.multicast.forgotten}); default 5 s.
     */
    public StreamMulticastBuilder forgetAfter(Duration d) {
        this.forgetAfter = Objects.requireNonNull(d);
        return this;
    }

    /**
     * How long this process waits to see a message it multicast decided before it resends it
     * to the stream's leader; each further resend waits twice as long as the one before, up to
     * 16 times this. Default 200 ms: well above a consensus round, so copies are rare (each
     * costs an instance, and is not delivered).
     */
    public StreamMulticastBuilder resendAfter(Duration d) {
        this.resendAfter = Objects.requireNonNull(d);
        return this;
    }

    /**
     * A subscription opened before the streams start ({@link #initialSubscription()}): its
     * position is in place before any stream replays its log or delivers, so no decision can
     * meet a bounded history that has no subscriber yet (a restarted replica resuming from its
     * snapshot's merge position: a replay longer than {@code retention} values would otherwise
     * drop what the subscription opened a moment later still needs). Each call adds one (P-SMR:
     * one per worker), opened in call order. Default none.
     */
    public StreamMulticastBuilder initialSubscription(GroupSet groups, MulticastPosition from, MulticastListener listener) {
        initialSubscriptions.add(new Initial(Objects.requireNonNull(groups, "groups"),
                Objects.requireNonNull(from, "from"), Objects.requireNonNull(listener, "listener")));
        return this;
    }

    /**
     * The stream states of the snapshot the initial subscriptions resume from
     * ({@link StreamMulticast#streamStates()}), handed to each stream with its install; default none.
     */
    public StreamMulticastBuilder streamStates(java.util.Map<Integer, byte[]> states) {
        this.streamStates = Objects.requireNonNull(states, "states");
        return this;
    }

    /**
     * The first message number of every stream of this run; default the start time in
     * milliseconds shifted left by {@link StreamMulticast#SEQUENCE_RUN_SHIFT}. For tests.
     */
    public StreamMulticastBuilder firstSequence(long n) {
        this.firstSequence = n;
        return this;
    }

    /**
     * Builds the streams' broadcasts and starts them, the forward transport (if any) and the
     * sequencer.
     *
     * @throws IllegalArgumentException if a required part is missing or a value is out of range
     */
    public StreamMulticast build() {
        if (groups == null || factory == null) {
            throw new IllegalArgumentException("groups and streams are required");
        }
        if (members <= 0 || self < 0 || self >= members) {
            throw new IllegalArgumentException("self must be 0.." + (members - 1) + " of " + members + " members, got "
                    + self);
        }
        layout = StreamLayout.of(self, members, groups, groupStreams, streamMembers);
        boolean runsAll = true;
        for (int i = 0; i < layout.count(); i++) {
            runsAll &= layout.runs(i);
        }
        if (transport == null && (routing == Routing.LEADER || !runsAll)) {
            throw new IllegalArgumentException("a forward transport is required with routing LEADER and when this "
                    + "process does not run every stream (routing " + routing + ", process " + self + ")");
        }
        if (skips == SkipPolicy.DEMAND && (routing != Routing.LEADER || numbering != Numbering.INSTANCE)) {
            throw new IllegalArgumentException("demand skips need routing LEADER and numbering INSTANCE");
        }
        if (skips == SkipPolicy.DEMAND && !layout.fullMembership()) {
            // A leader keeps its stream level with the busiest stream it runs: a stream it does
            // not run could leave subscribers merging both waiting.
            throw new IllegalArgumentException("demand skips need every process in every stream; streams over a "
                    + "subset of the processes need streams that skip by themselves (SkipPolicy.NONE, as rings at λ)");
        }
        if (transport != null && transport.localId() != self) {
            throw new IllegalArgumentException("forward transport is member " + transport.localId() + ", not " + self);
        }
        if (roundLength <= 0 || credits <= 0 || retention <= 0) {
            throw new IllegalArgumentException("roundLength, credits and retention must be positive");
        }
        if (credits > OriginSequences.WINDOW) {
            throw new IllegalArgumentException("credits must be at most " + OriginSequences.WINDOW + ", got " + credits);
        }
        if (period.isNegative() || period.isZero() || forgetAfter.isNegative() || forgetAfter.isZero()
                || resendAfter.isNegative() || resendAfter.isZero()) {
            throw new IllegalArgumentException("period, forgetAfter and resendAfter must be positive");
        }
        if (firstSequence < 0) {
            throw new IllegalArgumentException("firstSequence must not be negative");
        }
        StreamMulticast m = new StreamMulticast(this);
        m.streamStatesToInstall(streamStates);
        if (!initialSubscriptions.isEmpty()) {
            List<Subscription> opened = new ArrayList<>();
            try {
                for (Initial i : initialSubscriptions) {
                    opened.add(m.subscribe(i.groups(), i.from(), i.listener()));
                }
            } catch (RuntimeException e) {
                m.close();
                throw e;
            }
            m.initial = List.copyOf(opened);
        }
        m.start();
        return m;
    }
}
