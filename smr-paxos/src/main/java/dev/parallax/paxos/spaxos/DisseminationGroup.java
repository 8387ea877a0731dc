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
