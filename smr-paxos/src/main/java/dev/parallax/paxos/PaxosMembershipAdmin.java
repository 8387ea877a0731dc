package dev.parallax.paxos;

import dev.parallax.core.protocol.Effects;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.Member;
import dev.parallax.core.runtime.ProtocolRuntime;
import dev.parallax.core.spi.MembershipAdmin;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Multi-Paxos' side of {@link MembershipAdmin}: an operator's request becomes an operation on the
 * protocol thread ({@link ProtocolRuntime#runOnCore}), where the core proposes the configuration
 * command or starts the leadership transfer, or says why not; the future then completes when the
 * protocol thread sees the change decided (in the latest membership of the core's history) or the
 * target leading, and fails after {@link #TIMEOUT_NANOS} otherwise. It also keeps the transport's
 * members in step with the decided memberships ({@link Transport#addMember}, {@link Transport#removeMember}).
 *
 * <p>Generic in the runtime's core {@code C}: a {@link MultiPaxosCore} itself
 * ({@link #forMultiPaxos}), or a composite core that orders with one (S-Paxos), given by the
 * function to its ordering core and the two operations ({@link Operations}) run on the core with
 * the runtime's effects.
 *
 * <p>Threads: the {@link MembershipAdmin} methods from any thread, never blocking; {@link #observe}
 * on the protocol thread only (one writer of the pending requests, which other threads never read).
 *
 * @param <M> the runtime's messages
 * @param <R> its records
 * @param <V> its values
 * @param <C> its core
 */
public final class PaxosMembershipAdmin<M, R, V, C extends dev.parallax.core.protocol.ProtocolCore<M, R, V>>
        implements MembershipAdmin {
    /** How long a request may wait for its decision (or a transfer for its new leader). */
    static final long TIMEOUT_NANOS = 30_000_000_000L;

    private record Pending(MembershipChange change, int transferTo, long since, CompletableFuture<String> future) {
    }

    /**
     * The requests as the core takes them, on the protocol thread with the runtime's effects: a
     * {@link MultiPaxosCore}'s {@link MultiPaxosCore#proposeMembership} and
     * {@link MultiPaxosCore#transferLeadership}, or a composite core's wrappers of them.
     */
    public interface Operations<M, R, V, C> {
        /** Proposes {@code change}; null if proposed, else why not. */
        String propose(C core, MembershipChange change, long now, Effects<M, R, V> out);

        /** Starts a transfer of leadership to {@code target}; null if started, else why not. */
        String transfer(C core, int target, long now, Effects<M, R, V> out);
    }

    private final PaxosConfig config;
    private final Supplier<ProtocolRuntime<M, R, V, C>> runtime;
    private final Function<? super C, MultiPaxosCore> ordering;
    private final Operations<M, R, V, C> operations;
    private final PaxosRuntimeParts parts;
    private final Transport<?> transport;
    /** Protocol thread only. */
    private final List<Pending> pending = new ArrayList<>();
    /** Protocol thread only: the latest membership whose addresses the transport was given. */
    private Membership peersFor;
    /** Protocol thread only: the members added at run time whose address the transport was given. */
    private final java.util.Set<Integer> added = new java.util.HashSet<>();
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PaxosMembershipAdmin.class);

    /**
     * @param config     the ordering layer's settings (its window is the α of every change)
     * @param runtime    the runtime, once built (null before)
     * @param ordering   the ordering core of the runtime's core
     * @param operations how the core takes a change or a transfer
     * @param parts      where the membership in effect is published
     * @param transport  told of members added and removed (a fixed one is left alone)
     */
    public PaxosMembershipAdmin(PaxosConfig config, Supplier<ProtocolRuntime<M, R, V, C>> runtime,
                                Function<? super C, MultiPaxosCore> ordering, Operations<M, R, V, C> operations,
                                PaxosRuntimeParts parts, Transport<?> transport) {
        this.config = config;
        this.runtime = runtime;
        this.ordering = ordering;
        this.operations = operations;
        this.parts = parts;
        this.transport = transport;
    }

    /** The admin of a runtime whose core is a {@link MultiPaxosCore}. */
    static PaxosMembershipAdmin<PaxosMessage, PaxosRecord, Value, MultiPaxosCore> forMultiPaxos(PaxosConfig config,
            Supplier<ProtocolRuntime<PaxosMessage, PaxosRecord, Value, MultiPaxosCore>> runtime,
            PaxosRuntimeParts parts, Transport<?> transport) {
        return new PaxosMembershipAdmin<>(config, runtime, c -> c, new Operations<>() {
            @Override
            public String propose(MultiPaxosCore core, MembershipChange change, long now,
                                  Effects<PaxosMessage, PaxosRecord, Value> out) {
                return core.proposeMembership(change, now, out);
            }

            @Override
            public String transfer(MultiPaxosCore core, int target, long now, Effects<PaxosMessage, PaxosRecord, Value> out) {
                return core.transferLeadership(target, now, out);
            }
        }, parts, transport);
    }

    @Override
    public CompletableFuture<String> addLearner(int id, String hostPort) {
        return change(() -> MembershipChange.addLearner(id, address(hostPort), config.window()));
    }

    private static String address(String hostPort) {
        if (hostPort == null || address(0, hostPort) == null) {
            throw new IllegalArgumentException("'" + hostPort + "' is not host:port");
        }
        return hostPort;
    }

    @Override
    public CompletableFuture<String> promote(int id) {
        return change(() -> MembershipChange.promote(id, config.window()));
    }

    @Override
    public CompletableFuture<String> remove(int id) {
        return change(() -> MembershipChange.remove(id, config.window()));
    }

    @Override
    public CompletableFuture<String> replace(int oldId, int newId, String hostPort) {
        return change(() -> MembershipChange.replace(oldId, newId, hostPort == null || hostPort.isEmpty() ? ""
                : address(hostPort), config.window()));
    }

    @Override
    public CompletableFuture<String> transferLeadership(int id) {
        CompletableFuture<String> f = new CompletableFuture<>();
        submit(f, (c, now, out) -> {
            MultiPaxosCore core = ordering.apply(c);
            int target = id < 0 ? core.transferTarget() : id;
            String refusal = target < 0 ? "no other voter to hand leadership to" : operations.transfer(c, target, now, out);
            if (refusal != null) {
                f.completeExceptionally(refused(core, refusal));
            } else if (target == core.leaderHint() && !core.isLeader()) {
                f.complete("replica " + target + " leads view " + core.view());
            } else {
                pending.add(new Pending(null, target, now, f));
            }
        });
        return f;
    }

    @Override
    public String members() {
        return parts.membership().describe();
    }

    private CompletableFuture<String> change(Supplier<MembershipChange> build) {
        CompletableFuture<String> f = new CompletableFuture<>();
        MembershipChange c;
        try {
            c = build.get();
        } catch (IllegalArgumentException bad) {
            f.completeExceptionally(new MembershipChangeRefused(bad.getMessage()));
            return f;
        }
        submit(f, (core, now, out) -> {
            String refusal = operations.propose(core, c, now, out);
            if (refusal != null) {
                f.completeExceptionally(refused(ordering.apply(core), refusal));
            } else {
                pending.add(new Pending(c, -1, now, f));
            }
        });
        return f;
    }

    /** A refusal; {@link NotTheLeader} when this replica does not lead, so the caller asks another. */
    private static MembershipChangeRefused refused(MultiPaxosCore core, String why) {
        return core.isLeader() ? new MembershipChangeRefused(why) : new NotTheLeader(why, core.leaderHint());
    }

    private void submit(CompletableFuture<String> f, ProtocolRuntime.CoreOperation<M, R, V, C> op) {
        ProtocolRuntime<M, R, V, C> rt = runtime.get();
        if (rt == null || !rt.runOnCore(op)) {
            f.completeExceptionally(new MembershipChangeRefused("the replica is not running or its protocol thread is busy; retry"));
        }
    }

    /**
     * After a work cycle: completes requests now decided (or whose target leads) and fails those
     * past {@link #TIMEOUT_NANOS}; gives the transport the addresses of members added and forgets
     * those removed. Protocol thread only.
     */
    public void observe(C runtimeCore, long now) {
        MultiPaxosCore core = ordering.apply(runtimeCore);
        Membership latest = core.membershipHistory().latest();
        if (!pending.isEmpty()) {
            for (Iterator<Pending> it = pending.iterator(); it.hasNext(); ) {
                Pending p = it.next();
                if (p.change() != null && latest.reflects(p.change())) {
                    p.future().complete(latest.describe());
                    it.remove();
                } else if (p.change() == null && core.leaderHint() == p.transferTo() && !core.isLeader()) {
                    p.future().complete("replica " + p.transferTo() + " leads view " + core.view());
                    it.remove();
                } else if (now - p.since() > TIMEOUT_NANOS) {
                    p.future().completeExceptionally(new MembershipChangeRefused(p.change() == null
                            ? "replica " + p.transferTo() + " did not take over within 30 s"
                            : p.change() + " was not decided within 30 s (the leader may have changed; check members)"));
                    it.remove();
                }
            }
        }
        if (!latest.equals(peersFor)) {
            updatePeers(latest, core.membership());
            peersFor = latest;
        }
    }

    /** Members added at run time get their address; members removed by a change in effect are forgotten. */
    private void updatePeers(Membership latest, Membership current) {
        try {
            for (var e : latest.addresses().entrySet()) {
                Member hp = address(e.getKey(), e.getValue());
                if (hp != null && e.getKey() != transport.localId() && added.add(e.getKey())) {
                    LOG.info("replica {}: member {} at {}", transport.localId(), e.getKey(), e.getValue());
                    transport.addMember(e.getKey(), hp.host(), hp.port());
                }
            }
            int removed = current.retired();
            for (int id = 0; id <= Membership.MAX_ID; id++) {
                if ((removed & (1 << id)) != 0 && id != transport.localId()) {
                    transport.removeMember(id);
                }
            }
        } catch (UnsupportedOperationException fixed) {
            // A transport with a fixed membership (tests, the simulator): nothing to update.
            LOG.debug("replica {}: the transport has a fixed membership", transport.localId());
        }
    }

    /**
     * {@code hostPort} as member {@code id}'s address ({@link ClusterMembers#address}, IPv6
     * literals in brackets), or null if it is not {@code host:port}.
     */
    static Member address(int id, String hostPort) {
        try {
            return ClusterMembers.address(id, hostPort);
        } catch (IllegalArgumentException notAnAddress) {
            return null;
        }
    }
}
