package dev.parallax.paxos;

import dev.parallax.core.protocol.Effects;
import dev.parallax.core.runtime.ProtocolRuntime;
import dev.parallax.core.spi.MembershipAdmin;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;
import dev.parallax.core.membership.MembershipHistory;
import dev.parallax.core.membership.RuntimeMembershipAdmin;

import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Multi-Paxos' side of {@link MembershipAdmin}: the protocol-neutral {@link RuntimeMembershipAdmin}
 * (requests run on the protocol thread, futures complete when the change is decided or the target
 * leads, the transport follows the decided members) over a {@link MultiPaxosCore}, the runtime's
 * core itself ({@link #forMultiPaxos}) or the ordering core of a composite one (S-Paxos), given by
 * the function to it and the two operations ({@link Operations}) run on the runtime's core.
 *
 * <p>Threads: the {@link MembershipAdmin} methods from any thread, never blocking; {@link #observe}
 * on the protocol thread only.
 *
 * @param <M> the runtime's messages
 * @param <R> its records
 * @param <V> its values
 * @param <C> its core
 */
public final class PaxosMembershipAdmin<M, R, V, C extends dev.parallax.core.protocol.ProtocolCore<M, R, V>>
        implements MembershipAdmin.Forwarding {
    /** How long a request may wait for its decision (or a transfer for its new leader). */
    static final long TIMEOUT_NANOS = RuntimeMembershipAdmin.TIMEOUT_NANOS;

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

    private final RuntimeMembershipAdmin<M, R, V, C> admin;

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
        this.admin = new RuntimeMembershipAdmin<>(config.window(), runtime, new RuntimeMembershipAdmin.Ordering<>() {
            @Override
            public String propose(C core, MembershipChange change, long now, Effects<M, R, V> out) {
                return operations.propose(core, change, now, out);
            }

            @Override
            public String transfer(C core, int target, long now, Effects<M, R, V> out) {
                return operations.transfer(core, target, now, out);
            }

            @Override
            public int transferTarget(C core) {
                return ordering.apply(core).transferTarget();
            }

            @Override
            public MembershipHistory history(C core) {
                return ordering.apply(core).membershipHistory();
            }

            @Override
            public Membership current(C core) {
                return ordering.apply(core).membership();
            }

            @Override
            public boolean leads(C core) {
                return ordering.apply(core).isLeader();
            }

            @Override
            public int leaderHint(C core) {
                return ordering.apply(core).leaderHint();
            }

            @Override
            public long view(C core) {
                return ordering.apply(core).view();
            }
        }, parts::membership, transport);
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

    /** The protocol-neutral admin every request goes to. */
    @Override
    public MembershipAdmin membershipAdmin() {
        return admin;
    }

    /**
     * After a work cycle: completes requests now decided (or whose target leads) and fails those
     * past {@link #TIMEOUT_NANOS}; keeps the transport's members in step. Protocol thread only.
     */
    public void observe(C runtimeCore, long now) {
        admin.observe(runtimeCore, now);
    }
}
