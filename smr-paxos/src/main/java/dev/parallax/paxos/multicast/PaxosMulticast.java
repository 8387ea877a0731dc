package dev.parallax.paxos.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.multicast.ConfiguredMulticast;
import dev.parallax.core.multicast.MulticastForward;
import dev.parallax.core.multicast.Numbering;
import dev.parallax.core.multicast.Routing;
import dev.parallax.core.multicast.SkipPolicy;
import dev.parallax.core.multicast.StreamFactory;
import dev.parallax.core.multicast.StreamMulticast;
import dev.parallax.core.multicast.StreamMulticastBuilder;
import dev.parallax.core.spi.AtomicMulticast;
import dev.parallax.core.spi.MulticastListener;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.time.Clock;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Duration;

/**
 * The reference {@link AtomicMulticast}: every group is ordered by a Multi-Paxos instance of its
 * own, multi-group messages by one more instance (the "global" stream,
 * {@link MulticastPosition#GLOBAL_STREAM}), and every subscription merges the streams of its
 * groups and the global stream deterministically, M instances of each in turn, in increasing
 * stream id (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1). It is a correctness
 * baseline for the protocols that follow (Multi-Ring Paxos, P-SMR, S-SMR), not a fast path.
 *
 * <p>A configuration of smr-core's {@link StreamMulticast} (which documents the structure,
 * resends, exactly-once delivery, positions, history and cost): the streams are
 * {@code PaxosBroadcast}s built by the caller's {@link StreamFactory}; Multi-Paxos orders
 * proposals at its leader only, so a message goes to the stream's leader as this process knows it
 * ({@link Routing#LEADER}: into the local queue if it leads, over the caller's
 * {@link MulticastForward} transport otherwise; refused while no leader is known); the leader of
 * each stream keeps it level with the busiest one by deciding skip values on demand
 * ({@link SkipPolicy#DEMAND}: an idle system decides nothing); a position names the next
 * instance of every merged stream ({@link Numbering#INSTANCE}).
 *
 * <p><b>Threads.</b> {@link #multicast}, {@link #subscribe} and {@link #groups} from any thread;
 * {@link #multicast} never blocks. {@link #close} once by the owner: it closes the subscriptions,
 * the sequencer, the transport and the broadcasts, and leaves no thread running.
 */
public final class PaxosMulticast extends ConfiguredMulticast {

    private PaxosMulticast(StreamMulticast multicast) {
        super(multicast);
    }

    /** A builder; self, members, groups, streams and transport are required. */
    public static Builder builder() {
        return new Builder();
    }

    /** Mutable builder, not thread-safe; the defaults are {@link StreamMulticastBuilder}'s. */
    public static final class Builder {
        private final StreamMulticastBuilder b = StreamMulticast.builder().routing(Routing.LEADER)
                .skips(SkipPolicy.DEMAND).numbering(Numbering.INSTANCE);
        private boolean transportSet;

        private Builder() {
        }

        /** This process's member id, the same in every stream. */
        public Builder self(int self) {
            b.self(self);
            return this;
        }

        /** How many processes run the streams. */
        public Builder members(int members) {
            b.members(members);
            return this;
        }

        /** The groups offered. */
        public Builder groups(GroupSet groups) {
            b.groups(groups);
            return this;
        }

        /**
         * Builds each stream's broadcast (a {@code PaxosBroadcast}; one per group, and the global
         * one when there are several groups).
         */
        public Builder streams(StreamFactory factory) {
            b.streams(factory);
            return this;
        }

        /** Where messages for another process's stream leader travel; the multicast owns and closes it. */
        public Builder forwardTransport(Transport<MulticastForward> transport) {
            b.forwardTransport(transport);
            transportSet = transport != null;
            return this;
        }

        /** Time for resends and skip expiry; default {@link SystemClock}. */
        public Builder clock(Clock clock) {
            b.clock(clock);
            return this;
        }

        /** Where the multicast's counters go; default a private simple registry. */
        public Builder meterRegistry(MeterRegistry registry) {
            b.meterRegistry(registry);
            return this;
        }

        /** M: instances the merge takes from each stream in turn; default 1 (as the thesis' experiments). */
        public Builder roundLength(int m) {
            b.roundLength(m);
            return this;
        }

        /** Messages per stream an origin may have accepted and not yet seen decided; default 64, at most 1024. */
        public Builder credits(int n) {
            b.credits(n);
            return this;
        }

        /** Messages per stream kept for subscriptions that start later or resume; default 4096. */
        public Builder retention(int n) {
            b.retention(n);
            return this;
        }

        /** How long the sequencer parks when nothing wakes it; default 1 ms. */
        public Builder period(Duration d) {
            b.period(d);
            return this;
        }

        /** See {@link StreamMulticastBuilder#forgetAfter}; default 5 s. */
        public Builder forgetAfter(Duration d) {
            b.forgetAfter(d);
            return this;
        }

        /** See {@link StreamMulticastBuilder#resendAfter}; default 200 ms. */
        public Builder resendAfter(Duration d) {
            b.resendAfter(d);
            return this;
        }

        /**
         * A subscription opened before the streams start (see
         * {@code StreamMulticastBuilder.initialSubscription}); each call adds one. Default none.
         */
        public Builder initialSubscription(GroupSet groups, MulticastPosition from, MulticastListener listener) {
            b.initialSubscription(groups, from, listener);
            return this;
        }

        /** The first sequence number of every stream of this run; see {@link StreamMulticast#SEQUENCE_RUN_SHIFT}. Tests only. */
        Builder firstSequence(long n) {
            b.firstSequence(n);
            return this;
        }

        /**
         * Builds the streams' broadcasts and starts them, the forward transport and the sequencer.
         *
         * @throws IllegalArgumentException if a required part is missing or a value is out of range
         */
        public PaxosMulticast build() {
            if (!transportSet) {
                throw new IllegalArgumentException("groups, streams and forwardTransport are required");
            }
            return new PaxosMulticast(b.build());
        }
    }
}
