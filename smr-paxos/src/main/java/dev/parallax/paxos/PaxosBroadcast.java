package dev.parallax.paxos;

import dev.parallax.core.runtime.ProtocolRuntime;
import dev.parallax.core.runtime.RuntimeBroadcast;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.MembershipAdmin;
import dev.parallax.core.time.Clock;

/**
 * {@link AtomicBroadcast} by Multi-Paxos: the Multi-Paxos part of a {@link ProtocolRuntime}, which
 * runs the {@link MultiPaxosCore} (inbox, effects with one log sync per batch, delivery in order,
 * failure detection, metrics, threads). What is Multi-Paxos' own is here: the core built from the
 * recovered records, values (the no-op is not delivered) and the redirect rule (clients go to the
 * leader); the failure detector's rule ({@link SuspicionRule}) and the view it watches — none until
 * a restarted replica's local replay is handed to execution, so the detector's clock starts then —
 * and the view and leader gauges and the check-quorum and pre-vote counters are
 * in {@link PaxosRuntimeParts}, shared with S-Paxos. What only delegates to the runtime is
 * {@link RuntimeBroadcast}'s. Built with {@link #builder}.
 *
 * <p>Back-pressure and failure detection are the runtime's (see {@link ProtocolRuntime}):
 * {@link #propose} returns {@code false} when the proposal queue is full; a lagging listener holds
 * the protocol stage back without blocking it; a detector on its own thread reads arrival stamps.
 * The runtime settings that are not Multi-Paxos' own come as one {@link RuntimeOptions}.
 *
 * <p>Threads: {@link #propose}, {@link #redirectHint} and {@link #leaderHint} from any thread;
 * {@link #start} and {@link #close} once each, by the owner. The broadcast owns the transport and
 * the log it was given and closes them.
 */
public final class PaxosBroadcast extends RuntimeBroadcast<PaxosMessage, PaxosRecord, Value, MultiPaxosCore>
        implements MembershipAdmin.Forwarding {
    /** The instance name unless {@link RuntimeOptions} name another: the meters' {@code protocol} tag. */
    public static final String DEFAULT_NAME = "paxos";
    private final PaxosRuntimeParts parts;
    private final DeliveredMembership delivered;
    private final PaxosMembershipAdmin<PaxosMessage, PaxosRecord, Value, MultiPaxosCore> admin;

    private PaxosBroadcast(Parts<PaxosConfig, PaxosMessage> p) {
        PaxosConfig config = p.config();
        int self = p.self();
        RuntimeOptions options = p.options();
        this.parts = new PaxosRuntimeParts(config, self, options.name(DEFAULT_NAME), options.meterRegistry());
        this.delivered = new DeliveredMembership(config);
        this.admin = PaxosMembershipAdmin.forMultiPaxos(config, this::protocolRuntime, parts, p.transport());
        Clock clock = p.clock();
        ProtocolRuntime.Builder<PaxosMessage, PaxosRecord, Value, MultiPaxosCore> rb =
                p.runtimeBuilder(DEFAULT_NAME, new PaxosRecordCodec());
        MultiPaxosCore[] built = new MultiPaxosCore[1];
        rb.transport(new dev.parallax.core.membership.MemberAddressing<>(p.transport(),
                () -> built[0] == null ? null : built[0].membershipHistory().latest()));
        rb.core((recovered, amnesiac, now) -> {
                    MultiPaxosCore c = new MultiPaxosCore(config, self, recovered, amnesiac, now);
                    c.detectFailuresExternally();
                    built[0] = c;
                    return c;
                })
                .values(delivered)
                .failureDetection(parts.failureDetection())
                .observer(parts.<MultiPaxosCore>observer(c -> c, this::undelivered)
                        .andThen(c -> admin.observe(c, clock.nanoTime())))
                .maxTickNanos(parts.maxTickNanos());
        install(rb.build());
    }

    /** Protocol thread only: decisions kept for a lagging execution (the local replay, after a restart). */
    private int undelivered() {
        return protocolRuntime().protocolStage().undelivered();
    }

    /** The membership history as of the last delivery: what a snapshot carries. Delivery thread. */
    @Override
    public byte[] deliveryState() {
        return delivered.state();
    }

    /** A snapshot carrying {@code deliveryState} (a membership history) was installed: both sides take it. */
    @Override
    public void snapshotInstalled(long nextSequence, byte[] deliveryState) {
        delivered.install(deliveryState);
        protocolRuntime().skipTo(nextSequence, deliveryState);
    }

    /** A builder; config, self, transport, log and clock are required. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Multi-Paxos' redirect rule: clients go to the leader this replica believes in, as the
     * protocol thread last published it; -1 (take them here) before start or while no leader is
     * known — the batcher then holds them until a leader takes proposals.
     */
    @Override
    public int redirectHint() {
        return parts.leaderHint();
    }

    /** Every membership request goes to Multi-Paxos' admin ({@link PaxosMembershipAdmin}). */
    @Override
    public MembershipAdmin membershipAdmin() {
        return admin;
    }

    /**
     * Mutable builder, not thread-safe: the setters of {@link RuntimeBroadcast.BaseBuilder}; the
     * transport carries the Multi-Paxos messages, the log is the acceptor's.
     */
    public static final class Builder extends BaseBuilder<PaxosConfig, PaxosMessage, Builder> {
        private Builder() {
            super(PaxosConfig::members);
        }

        @Override
        protected Builder thisBuilder() {
            return this;
        }

        /** @throws IllegalArgumentException if a required part is missing */
        public PaxosBroadcast build() {
            return new PaxosBroadcast(parts());
        }
    }
}
