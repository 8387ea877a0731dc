package dev.parallax.core.membership;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.Member;
import dev.parallax.core.protocol.Effects;
import dev.parallax.core.protocol.ProtocolCore;
import dev.parallax.core.runtime.ProtocolRuntime;
import dev.parallax.core.spi.MembershipAdmin;
import dev.parallax.core.spi.Transport;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * {@link MembershipAdmin} for any ordering whose core decides {@link MembershipChange}s into a
 * {@link MembershipHistory} (Multi-Paxos, S-Paxos, the Ring Paxos orderings): an operator's request
 * becomes an operation on the protocol thread ({@link ProtocolRuntime#runOnCore}), where the
 * ordering ({@link Ordering}) proposes the configuration command or starts a leadership transfer,
 * or says why not; the future then completes when the protocol thread sees the change decided (in
 * the latest membership of the core's history) or the target leading, and fails after
 * {@link #TIMEOUT_NANOS} otherwise. It also keeps the transport's members in step with the decided
 * memberships ({@link Transport#addMember}, {@link Transport#removeMember}).
 *
 * <p>Threads: the {@link MembershipAdmin} methods from any thread, never blocking; {@link #observe}
 * on the protocol thread only (one writer of the pending requests, which other threads never read).
 *
 * @param <M> the runtime's messages
 * @param <R> its records
 * @param <V> its values
 * @param <C> its core
 */
public final class RuntimeMembershipAdmin<M, R, V, C extends ProtocolCore<M, R, V>> implements MembershipAdmin {
    /** How long a request may wait for its decision (or a transfer for its new leader). */
    public static final long TIMEOUT_NANOS = 30_000_000_000L;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RuntimeMembershipAdmin.class);

    /**
     * What the admin asks of the ordering, on the protocol thread with the runtime's effects.
     *
     * @param <M> the runtime's messages
     * @param <R> its records
     * @param <V> its values
     * @param <C> its core
     */
    public interface Ordering<M, R, V, C> {
        /** Proposes {@code change}; null if proposed, else why not. */
        String propose(C core, MembershipChange change, long now, Effects<M, R, V> out);

        /** Starts a transfer of leadership to {@code target}; null if started, else why not. */
        String transfer(C core, int target, long now, Effects<M, R, V> out);

        /** The voter a transfer goes to when the operator names none, -1 if there is none. */
        int transferTarget(C core);

        /** The core's membership history. */
        MembershipHistory history(C core);

        /** The membership in effect at the core's first undecided instance. */
        Membership current(C core);

        /** Whether this replica leads (the one that takes changes). */
        boolean leads(C core);

        /** Who this replica believes leads, -1 if unknown. */
        int leaderHint(C core);

        /** The view, round or term the leader hint leads (for the operator). */
        long view(C core);
    }

    private record Pending(MembershipChange change, int transferTo, long since, CompletableFuture<String> future) {
    }

    private final int alpha;
    private final Supplier<? extends ProtocolRuntime<M, R, V, C>> runtime;
    private final Ordering<M, R, V, C> ordering;
    private final Supplier<Membership> published;
    private final Transport<?> transport;
    /** Protocol thread only. */
    private final List<Pending> pending = new ArrayList<>();
    /** Protocol thread only: the latest membership whose addresses the transport was given. */
    private Membership peersFor;
    /** Protocol thread only: the members added at run time whose address the transport was given. */
    private final Set<Integer> added = new HashSet<>();

    /**
     * @param alpha     the α of every change (the ordering's window)
     * @param runtime   the runtime, once built (null before)
     * @param ordering  how the core takes a change or a transfer, and what it answers
     * @param published the membership in effect as last published (any thread)
     * @param transport told of members added and removed (a fixed one is left alone)
     */
    public RuntimeMembershipAdmin(int alpha, Supplier<? extends ProtocolRuntime<M, R, V, C>> runtime,
                                  Ordering<M, R, V, C> ordering, Supplier<Membership> published, Transport<?> transport) {
        this.alpha = alpha;
        this.runtime = runtime;
        this.ordering = ordering;
        this.published = published;
        this.transport = transport;
    }

    @Override
    public CompletableFuture<String> addLearner(int id, String hostPort) {
        return change(() -> MembershipChange.addLearner(id, checked(hostPort), alpha));
    }

    private static String checked(String hostPort) {
        if (hostPort == null || address(0, hostPort) == null) {
            throw new IllegalArgumentException("'" + hostPort + "' is not host:port");
        }
        return hostPort;
    }

    @Override
    public CompletableFuture<String> promote(int id) {
        return change(() -> MembershipChange.promote(id, alpha));
    }

    @Override
    public CompletableFuture<String> remove(int id) {
        return change(() -> MembershipChange.remove(id, alpha));
    }

    @Override
    public CompletableFuture<String> replace(int oldId, int newId, String hostPort) {
        return change(() -> MembershipChange.replace(oldId, newId, hostPort == null || hostPort.isEmpty() ? ""
                : checked(hostPort), alpha));
    }

    @Override
    public CompletableFuture<String> transferLeadership(int id) {
        CompletableFuture<String> f = new CompletableFuture<>();
        submit(f, (c, now, out) -> {
            // Only a leader picks a target; asked elsewhere, the ordering refuses and names the leader.
            int target = id < 0 && ordering.leads(c) ? ordering.transferTarget(c) : id;
            String refusal = target < 0 && ordering.leads(c) ? "no other voter is within a window of this leader to hand leadership to"
                    : ordering.transfer(c, target, now, out);
            if (refusal != null) {
                f.completeExceptionally(refused(c, refusal));
            } else if (target == ordering.leaderHint(c)) {
                // The target leads already (it was asked itself, or a transfer ended before this one).
                f.complete("replica " + target + " leads view " + ordering.view(c));
            } else {
                pending.add(new Pending(null, target, now, f));
            }
        });
        return f;
    }

    @Override
    public String members() {
        return published.get().describe();
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
            String refusal = ordering.propose(core, c, now, out);
            if (refusal != null) {
                f.completeExceptionally(refused(core, refusal));
            } else {
                pending.add(new Pending(c, -1, now, f));
            }
        });
        return f;
    }

    /** A refusal; {@link NotTheLeader} when this replica does not lead, so the caller asks another. */
    private MembershipChangeRefused refused(C core, String why) {
        return ordering.leads(core) ? new MembershipChangeRefused(why) : new NotTheLeader(why, ordering.leaderHint(core));
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
    public void observe(C core, long now) {
        Membership latest = ordering.history(core).latest();
        if (!pending.isEmpty()) {
            for (Iterator<Pending> it = pending.iterator(); it.hasNext(); ) {
                Pending p = it.next();
                if (p.change() != null && latest.reflects(p.change())) {
                    p.future().complete(latest.describe());
                    it.remove();
                } else if (p.change() == null && ordering.leaderHint(core) == p.transferTo() && !ordering.leads(core)) {
                    p.future().complete("replica " + p.transferTo() + " leads view " + ordering.view(core));
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
            updatePeers(latest, ordering.current(core));
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
    public static Member address(int id, String hostPort) {
        try {
            return ClusterMembers.address(id, hostPort);
        } catch (IllegalArgumentException notAnAddress) {
            return null;
        }
    }
}
