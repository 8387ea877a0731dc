package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;
import dev.parallax.core.multicast.StreamMembership;
import dev.parallax.core.spi.MembershipAdmin;
import dev.parallax.ringpaxos.RingPaxosBroadcast;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntFunction;

/**
 * One ring's member set in replica ids: the ring's own {@link MembershipAdmin} (Ring Paxos' rules
 * G1–G8, in the ring's member ids) behind the ring's {@link RingMemberIds}. A request about a replica
 * that can never be a member of the ring (another partition's, under S-SMR) changes nothing here
 * and says so ({@link StreamMembership#UNCHANGED}); a replacement by one that cannot join it, of one
 * that is, is refused (replicas do not move between partitions); a refusal's leader hint is turned back
 * into a replica id; a change the ring has decided already is answered at once (a request for the
 * whole group, repeated after it stopped half way, passes the rings that took it). A part of the
 * replica's {@code StreamsMembership}.
 *
 * <p>Threads: as {@link MembershipAdmin}'s; stateless but for the ring it wraps.
 */
final class RingMembership implements StreamMembership {
    /** How the answer of a ring a request does not concern begins ({@link StreamMembership#UNCHANGED}). */
    private static final String UNCHANGED = StreamMembership.UNCHANGED;
    /** How a ring's admin answers a transfer: the member that leads now. */
    private static final java.util.regex.Pattern LEADS = java.util.regex.Pattern.compile("replica (\\d+) leads");

    private final String name;
    private final RingPaxosBroadcast ring;
    private final RingMemberIds ids;

    RingMembership(String name, RingPaxosBroadcast ring, RingMemberIds ids) {
        this.name = name;
        this.ring = ring;
        this.ids = ids;
    }

    @Override
    public Membership membership() {
        return ring.currentMembership().renumbered(ids::replica);
    }

    @Override
    public CompletableFuture<String> addLearner(int id, String hostPort) {
        return translated(m -> ring.addLearner(m, hostPort), id, m -> MembershipChange.addLearner(m, "", 1));
    }

    @Override
    public CompletableFuture<String> promote(int id) {
        return translated(ring::promote, id, m -> MembershipChange.promote(m, 1));
    }

    @Override
    public CompletableFuture<String> remove(int id) {
        return translated(ring::remove, id, m -> MembershipChange.remove(m, 1));
    }

    @Override
    public CompletableFuture<String> replace(int oldId, int newId, String hostPort) {
        int newMember = ids.member(newId);
        if (newMember < 0 && ids.member(oldId) < 0) {
            return CompletableFuture.completedFuture(UNCHANGED + decided());
        }
        if (newMember < 0) {
            return refused(newId);
        }
        return translated(m -> ring.replace(m, newMember, hostPort), oldId,
                m -> MembershipChange.replace(m, newMember, "", 1));
    }

    @Override
    public CompletableFuture<String> transferLeadership(int id) {
        int member = id < 0 ? -1 : ids.member(id);
        if (id >= 0 && member < 0) {
            // Another partition's replica (S-SMR): this ring's coordination does not go there.
            return CompletableFuture.completedFuture(UNCHANGED + "replica " + id + " is no member of " + name);
        }
        CompletableFuture<String> f;
        try {
            f = ring.transferLeadership(member);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return answered(f, this::coordinates);
    }

    /** A transfer's answer ("replica M leads view V", M a member id) in replica ids. */
    private String coordinates(String answer) {
        java.util.regex.Matcher m = LEADS.matcher(answer == null ? "" : answer);
        return m.find() ? "replica " + ids.replica(Integer.parseInt(m.group(1))) + " coordinates " + name
                : name + ": " + answer + " (ring member ids)";
    }

    /**
     * The request in the ring's ids. A change this ring has decided already is answered at once:
     * the operator's request for the whole group goes through the rings one after another, and is
     * repeated when one of them refused it (or a coordinator died) half way.
     */
    private CompletableFuture<String> translated(IntFunction<CompletableFuture<String>> request, int replica,
                                                 IntFunction<MembershipChange> change) {
        int member = ids.member(replica);
        if (member < 0) {
            // Another partition's replica (S-SMR): this ring has nothing to change.
            return CompletableFuture.completedFuture(UNCHANGED + decided());
        }
        if (ring.decidedMembership().reflects(change.apply(member))) {
            return CompletableFuture.completedFuture(decided());
        }
        return ask(request, member);
    }

    /** Asks the ring for {@code request} of its member {@code member}. */
    private CompletableFuture<String> ask(IntFunction<CompletableFuture<String>> request, int member) {
        CompletableFuture<String> f;
        try {
            f = request.apply(member);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return answered(f);
    }

    /** The ring's answer in replica ids: its membership line, or its refusal with the hint translated. */
    private CompletableFuture<String> answered(CompletableFuture<String> f) {
        return answered(f, ok -> decided());
    }

    /** The ring's answer: {@code success} of it, or its refusal with the hint translated to replica ids. */
    private CompletableFuture<String> answered(CompletableFuture<String> f, java.util.function.UnaryOperator<String> success) {
        return f.handle((ok, failure) -> {
            if (failure == null) {
                return success.apply(ok);
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            if (cause instanceof MembershipAdmin.NotTheLeader n) {
                throw new MembershipAdmin.NotTheLeader(n.getMessage() + " (ring member ids; replica "
                        + ids.replica(n.leaderHint()) + " coordinates " + name + ")", ids.replica(n.leaderHint()));
            }
            throw cause instanceof RuntimeException r ? r : new CompletionException(cause);
        });
    }

    @Override
    public Membership decidedMembership() {
        return ring.decidedMembership().renumbered(ids::replica);
    }

    /** The latest decided set, in replica ids: a change's answer, as a single ring's admin gives it. */
    private String decided() {
        return decidedMembership().describe();
    }

    private CompletableFuture<String> refused(int replica) {
        return CompletableFuture.failedFuture(new MembershipAdmin.MembershipChangeRefused("replica " + replica
                + " cannot be a member of " + name + ": its members are the cluster file's replicas of the ring and "
                + "replicas joined later under an id from the file's member count up to ring.member.ids - 1"));
    }

    @Override
    public String toString() {
        return name + " " + membership().describe();
    }
}
