package dev.parallax.ringpaxos;

import java.util.Arrays;

/**
 * The ring of one round: which members are on it, in which order, and which of them are the round's
 * acceptors. The coordinator of round {@code r} chooses it after Phase 1 from members that answered
 * and puts it in every packet of the round (seed 003 (Ring Paxos) §3.3.2 ¶2; our choice);
 * acceptors keep no state for it.
 *
 * <ul>
 *   <li>{@link Kind#U_RING} (seed 003 §3.3.3 ¶2, Alg. 3): {@code order[0]} is the coordinator ("the
 *       coordinator is the first acceptor"), positions {@code 0..a} are the a+1 acceptors (a
 *       quorum, {@link RingConfig#ringAcceptors()}: f+1 of 2f+1, a majority for any n),
 *       {@code order[a]} is the last acceptor, the rest are learners; the packet travels from each
 *       member to its {@link #successor}, the last member's successor being the coordinator.</li>
 *   <li>{@link Kind#M_RING} (seed 003 §3.3.2 ¶1, Alg. 2): {@code order = [a1 … aa, c]}: the Phase 2B
 *       chain starts at {@link #first()} and ends at the coordinator, the last member; every ring
 *       member is an acceptor, every member off the ring is a spare acceptor and a learner.</li>
 * </ul>
 *
 * <p>Wire form {@code kind:1 count:1 acceptors:1 id:1×count} ({@link #wireBytes()}). Member ids are
 * in {@code [0, 254]}; a ring has 1..254 distinct members. Immutable (the order is copied in and
 * out) and thread-safe.
 */
public final class Ring {

    /** The dissemination variant a ring belongs to. */
    public enum Kind {
        /** Unicast ring: all members, TCP (seed 003 §3.3.3). */
        U_RING(1),
        /** Multicast ring: a quorum of acceptors chaining Phase 2B, datagrams for the rest (seed 003 §3.3.2). */
        M_RING(2);

        private final int code;

        Kind(int code) {
            this.code = code;
        }

        /** The kind's byte on the wire. */
        public int code() {
            return code;
        }

        /**
         * The kind with wire byte {@code code}.
         *
         * @throws IllegalArgumentException if no kind has it
         */
        public static Kind ofCode(int code) {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            throw new IllegalArgumentException("no ring kind " + code);
        }
    }

    /** The highest member id a ring may hold (ids are one byte on the wire). */
    public static final int MAX_MEMBER = 254;

    private final Kind kind;
    private final int[] order;
    private final int acceptors;

    /**
     * @param kind the variant
     * @param order the members in ring order (copied)
     * @param acceptors how many of the first members are acceptors: a quorum,
     *        {@link RingConfig#ringAcceptors()} ({@code order.length} for an M-Ring)
     * @throws IllegalArgumentException if the order is empty, holds an id outside {@code [0, 254]} or
     *         an id twice, or {@code acceptors} is not in {@code [1, order.length]} (not
     *         {@code order.length} for an M-Ring)
     */
    public Ring(Kind kind, int[] order, int acceptors) {
        if (kind == null) {
            throw new IllegalArgumentException("ring without a kind");
        }
        int[] copy = order.clone();
        if (copy.length < 1 || copy.length > MAX_MEMBER) {
            throw new IllegalArgumentException("a ring has 1.." + MAX_MEMBER + " members, got " + copy.length);
        }
        boolean[] seen = new boolean[MAX_MEMBER + 1];
        for (int id : copy) {
            if (id < 0 || id > MAX_MEMBER) {
                throw new IllegalArgumentException("ring member " + id + " outside [0, " + MAX_MEMBER + "]");
            }
            if (seen[id]) {
                throw new IllegalArgumentException("ring member " + id + " twice in " + Arrays.toString(copy));
            }
            seen[id] = true;
        }
        if (acceptors < 1 || acceptors > copy.length) {
            throw new IllegalArgumentException("acceptors " + acceptors + " outside [1, " + copy.length + "]");
        }
        if (kind == Kind.M_RING && acceptors != copy.length) {
            throw new IllegalArgumentException("every M-Ring member is an acceptor: acceptors " + acceptors
                    + " of " + copy.length);
        }
        this.kind = kind;
        this.order = copy;
        this.acceptors = acceptors;
    }

    /**
     * A U-Ring led by {@code coordinator}: {@code ringOrder} lists the ring's members in ring order,
     * starting anywhere; the ring is rotated to start at the coordinator, whose
     * {@code otherAcceptors} following members (in ring order) are the other acceptors (seed 003
     * §3.3.3 ¶2).
     *
     * @param coordinator the round's coordinator, a member of {@code ringOrder}
     * @param otherAcceptors the acceptors besides the coordinator: the ring has
     *        {@code otherAcceptors + 1} ({@link RingConfig#othersInQuorum()}: f for n = 2f+1, n/2 for
     *        even n)
     * @param ringOrder at least {@code otherAcceptors + 1} distinct members
     * @throws IllegalArgumentException if the coordinator is not in {@code ringOrder},
     *         {@code otherAcceptors < 0}, or the members are fewer than {@code otherAcceptors + 1} or
     *         not a valid ring
     */
    public static Ring uRing(int coordinator, int otherAcceptors, int[] ringOrder) {
        int f = otherAcceptors;
        if (f < 0) {
            throw new IllegalArgumentException("otherAcceptors must be >= 0, got " + f);
        }
        int at = indexOf(ringOrder, coordinator);
        if (at < 0) {
            throw new IllegalArgumentException("coordinator " + coordinator + " not in " + Arrays.toString(ringOrder));
        }
        int[] rotated = new int[ringOrder.length];
        for (int i = 0; i < rotated.length; i++) {
            rotated[i] = ringOrder[(at + i) % ringOrder.length];
        }
        if (f + 1 > rotated.length) {
            throw new IllegalArgumentException("a U-Ring with " + (f + 1) + " acceptors needs " + (f + 1)
                    + " members, got " + rotated.length);
        }
        return new Ring(Kind.U_RING, rotated, f + 1);
    }

    /**
     * An M-Ring {@code [a1 … aa, coordinator]} (seed 003 §3.3.2 ¶1): the Phase 2B chain runs through
     * {@code acceptorsBefore} in order and ends at the coordinator.
     *
     * @param coordinator the round's coordinator
     * @param acceptorsBefore the other ring acceptors ({@link RingConfig#othersInQuorum()}), in chain
     *        order (may be empty: n = 1)
     * @throws IllegalArgumentException if the members are not a valid ring (e.g. the coordinator
     *         among {@code acceptorsBefore})
     */
    public static Ring mRing(int coordinator, int[] acceptorsBefore) {
        int[] order = Arrays.copyOf(acceptorsBefore, acceptorsBefore.length + 1);
        order[acceptorsBefore.length] = coordinator;
        return new Ring(Kind.M_RING, order, order.length);
    }

    /** The variant. */
    public Kind kind() {
        return kind;
    }

    /** The members in ring order (a copy). */
    public int[] order() {
        return order.clone();
    }

    /** The member at {@code position}, in {@code [0, size())}. */
    public int member(int position) {
        return order[position];
    }

    /** The number of ring members. */
    public int size() {
        return order.length;
    }

    /** The number of acceptors on the ring: a quorum ({@link RingConfig#ringAcceptors()}). */
    public int acceptors() {
        return acceptors;
    }

    /** The coordinator: {@code order[0]} of a U-Ring, the last member of an M-Ring. */
    public int coordinator() {
        return kind == Kind.U_RING ? order[0] : order[order.length - 1];
    }

    /**
     * The last acceptor: the U-Ring member that decides ({@code order[acceptors() − 1]}, Alg. 3 l.27–32); of an
     * M-Ring, the end of the Phase 2B chain, the coordinator (Alg. 2 l.34).
     */
    public int lastAcceptor() {
        return order[acceptors - 1];
    }

    /** The first member: the U-Ring coordinator, the M-Ring's first Phase 2B sender (Alg. 2 l.26). */
    public int first() {
        return order[0];
    }

    /** The position of {@code member} on the ring, or {@code -1} if it is off the ring. */
    public int position(int member) {
        return indexOf(order, member);
    }

    /** Whether {@code member} is on the ring. */
    public boolean contains(int member) {
        return position(member) >= 0;
    }

    /** Whether {@code member} is one of the ring's acceptors (position below {@link #acceptors()}). */
    public boolean isAcceptor(int member) {
        int p = position(member);
        return p >= 0 && p < acceptors;
    }

    /**
     * The member after {@code member} in ring order (the last member's successor is the first), or
     * {@code -1} if {@code member} is off the ring. A one-member ring is its own successor.
     */
    public int successor(int member) {
        int p = position(member);
        return p < 0 ? -1 : order[(p + 1) % order.length];
    }

    /**
     * The member before {@code member} in ring order (the first member's predecessor is the last),
     * or {@code -1} if {@code member} is off the ring.
     */
    public int predecessor(int member) {
        int p = position(member);
        return p < 0 ? -1 : order[(p + order.length - 1) % order.length];
    }

    /** Bytes of the wire form: {@code 3 + size()}. */
    public int wireBytes() {
        return 3 + order.length;
    }

    private static int indexOf(int[] order, int member) {
        for (int i = 0; i < order.length; i++) {
            if (order[i] == member) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Ring r && r.kind == kind && r.acceptors == acceptors && Arrays.equals(r.order, order);
    }

    @Override
    public int hashCode() {
        return (kind.hashCode() * 31 + acceptors) * 31 + Arrays.hashCode(order);
    }

    @Override
    public String toString() {
        return kind + Arrays.toString(order) + "/" + acceptors;
    }
}
