package dev.parallax.paxos.spaxos;

import dev.parallax.core.membership.Membership;

import java.util.List;

/**
 * The members dissemination works with (docs/protocols/s-paxos.md "Membership changes"): the
 * membership the ordering layer has in effect at its first undecided instance, the ones decided
 * but not yet in effect (pending, rule R1 of {@code MembershipHistory}), and who must hear the
 * group from there on. {@link SPaxosCore} answers from its ordering core on every call, so
 * dissemination follows every change the ordering layer makes; a standalone
 * {@link DisseminationCore} keeps the cluster file's membership ({@link #fixed}).
 *
 * <p><b>Membership changes</b> (docs/protocols/s-paxos.md "Membership changes"). The members are
 * the ordering layer's (this interface: the membership in effect at its first
 * undecided instance, and the pending one, rule R1 of {@code MembershipHistory}); ids are
 * {@code 0..31}, arrays are sized by the id space.
 * <ol>
 * <li>M1 Recipients: forwards and acks go to every member now or pending, voters and learners
 *     alike (a learner executes, so it needs the bodies, seed 002 Alg. 1 l.19–22).</li>
 * <li>M2 Stability (§IV-B a): an id becomes stable once f+1 <em>voters</em> hold it in the
 *     membership in effect and in every pending one, f from each one's voter count (a change
 *     re-checks every stream). The leader orders it at an instance below its first undecided + α
 *     (rule R2), whose membership is one of those unless a change is decided meanwhile; learners'
 *     and removed replicas' acks never count.</li>
 * <li>M2' Ordering under the membership of the instance: the leader hands an id to the ordering
 *     core only while it is stable under the memberships in effect or pending at that moment
 *     ({@link DisseminationCore#stableNow}; {@code SPaxosCore} step 4; ids it holds back do not block later ones), for the instance it gets is below the first
 *     undecided + α and so governed by one of them (R2). An id that became stable before a change
 *     was decided — held, say, by a voter the change removes and one other — waits until the new
 *     voters fetched it (a gap their peers acked, rule 5) instead of being ordered where a
 *     removal and one crash would leave no holder.</li>
 * <li>M3 Why an id stable under an old membership stays safe: seed 002 §IV-B a needs one holder
 *     reachable when a replica executes it, not f+1 of the membership of its instance. What is
 *     relied on: (a) f+1 voters held it when it became stable (M2); (b) a body is dropped only
 *     after its holder executed it and a snapshot covers it (rule 8), and a removed replica keeps
 *     its bodies and still answers fetches while it runs; (c) fetch on demand from any replica
 *     that acked it (rule 5), a {@code BodyGone} leading to a snapshot that covers it; (d) one
 *     change at a time (rule R3), each removing at most one voter, so a change decided after
 *     stability costs at most one holder per change — counted as one of the f failures its f+1
 *     holders tolerate — until the new voter (a learner caught up first, {@code MembershipGate})
 *     holds it by fetching and executing it.</li>
 * <li>M4 Removed replicas: a replica retired by a change is not counted for stability nor for
 *     recovery (rule 9 counts the current voters, {@link DisseminationRecovery}) and is not waited
 *     for; its bodies and acks are still taken, as a body source only (its clients' batches
 *     numbered before its removal still reach the order). It gets no forwards or acks, and its
 *     fetches are not served. A replica that is no member of the membership in effect takes no
 *     client batch ({@link DisseminationCore#onProposal} returns {@code false}). Ids that were never members are
 *     ignored.</li>
 * <li>M5 New members: an id above the cluster file's {@code n - 1} (up to 31) is accepted as
 *     origin, sender and fetch source once the ordering layer made it a member.</li>
 * </ol>
 *
 * <p>Read on the driver thread only, during a step; implementations never block.
 */
public interface DisseminationGroup {
    /** The membership in effect at the ordering layer's first undecided instance. */
    Membership current();

    /**
     * The membership in effect and every pending one, oldest first (one or two: one change at a
     * time). A stable id may be ordered at any instance up to the window ahead, under any of them.
     */
    List<Membership> inEffectOrPending();

    /** Every id that must receive bodies and acks: the members of {@link #inEffectOrPending()}. */
    default int recipients() {
        int mask = 0;
        for (Membership m : inEffectOrPending()) {
            mask |= m.members();
        }
        return mask;
    }

    /** A group whose membership never changes. */
    static DisseminationGroup fixed(Membership m) {
        List<Membership> one = List.of(m);
        return new DisseminationGroup() {
            @Override
            public Membership current() {
                return m;
            }

            @Override
            public List<Membership> inEffectOrPending() {
                return one;
            }
        };
    }
}
