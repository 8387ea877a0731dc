package dev.parallax.core.membership;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which membership is in effect at each instance of one replica's order: the membership given at
 * start, and every decided configuration command from the instance it takes effect at.
 *
 * <p><b>Rule R1</b> (Lamport, Malkhi and Zhou, "Reconfiguring a State Machine", §3, with α the
 * pipeline window). A change decided at instance {@code c} with window {@code α} takes effect at
 * {@code c + α}: instances from there on use the new membership, instances below it the old one.
 * <b>Rule R2.</b> A replica therefore knows the membership of instance {@code i} once every
 * instance up to {@code i - α} is decided at it, that is {@code i < firstUndecided + α}
 * ({@link #knows}); a leader proposes, and a learner counts votes, only where it knows. A change is
 * applied to the membership left by the changes before it; one the membership refuses
 * ({@link Membership#refusal}) is decided as a no-op at every replica alike. <b>Rule R3.</b> One
 * change at a time: a leader proposes a change only while none is decided and not yet in effect
 * ({@link #pending}) and none is in flight; the history itself stays correct for any sequence.
 *
 * <p>Every replica must run with the same window: a decided change whose α is smaller than this
 * replica's would break R2 ({@link #apply} reports it).
 *
 * <p>Not thread-safe: one writer (the protocol thread, or the delivery thread for its own copy).
 */
public final class MembershipHistory {
    private final int alpha;
    private final TreeMap<Long, Membership> byFrom = new TreeMap<>();
    /** The highest instance whose value was applied, or -1. */
    private long appliedThrough = -1;

    /**
     * @param initial the membership at instance 0
     * @param alpha   this replica's window (α)
     */
    public MembershipHistory(Membership initial, int alpha) {
        if (alpha < 1) {
            throw new IllegalArgumentException("alpha must be positive, got " + alpha);
        }
        this.alpha = alpha;
        byFrom.put(0L, initial);
    }

    /** α, the delay between a change's decision and its effect. */
    public int alpha() {
        return alpha;
    }

    /** The membership in effect at {@code instance} as far as this replica knows (see {@link #knows}). */
    public Membership at(long instance) {
        if (byFrom.size() == 1) {
            return byFrom.get(byFrom.firstKey()); // no change yet: no floor search (asked on every message)
        }
        Long from = byFrom.floorKey(instance);
        return byFrom.get(from == null ? byFrom.firstKey() : from);
    }

    /** Rule R2: whether the membership of {@code instance} is settled, given the first undecided instance. */
    public boolean knows(long instance, long firstUndecided) {
        return instance < firstUndecided + alpha;
    }

    /** The latest membership: the one every decided change leads to. */
    public Membership latest() {
        return byFrom.get(byFrom.lastKey());
    }

    /**
     * Rule R3: whether a decided change is not yet in effect at {@code firstUndecided}; its
     * effective instance, or -1.
     */
    public long pending(long firstUndecided) {
        if (byFrom.size() == 1) {
            return -1;
        }
        Long next = byFrom.higherKey(firstUndecided);
        return next == null ? -1 : next;
    }

    /**
     * Every replica that should hear the group from {@code firstUndecided} on: the members of the
     * membership in effect there and of every later one.
     */
    public int recipients(long firstUndecided) {
        int mask = at(firstUndecided).members();
        if (byFrom.size() > 1) {
            for (Membership m : byFrom.tailMap(firstUndecided, false).values()) {
                mask |= m.members();
            }
        }
        return mask;
    }

    /** Every voter of the membership at {@code firstUndecided} and of every later one. */
    public int voters(long firstUndecided) {
        int mask = at(firstUndecided).voters();
        if (byFrom.size() > 1) {
            for (Membership m : byFrom.tailMap(firstUndecided, false).values()) {
                mask |= m.voters();
            }
        }
        return mask;
    }

    /**
     * Whether {@code mask} holds a quorum of the membership in effect at {@code firstUndecided} and
     * of every later one: what a leader's confirmation round needs (read-index), so that it meets
     * every quorum a newer leader may have used from there on.
     */
    public boolean isQuorumOfEvery(long firstUndecided, int mask) {
        if (!at(firstUndecided).isQuorum(mask)) {
            return false;
        }
        if (byFrom.size() > 1) {
            for (Membership m : byFrom.tailMap(firstUndecided, false).values()) {
                if (!m.isQuorum(mask)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The highest instance whose value was applied, or -1. */
    public long appliedThrough() {
        return appliedThrough;
    }

    /**
     * Instance {@code instance}, decided, is applied in order: a configuration command adds the
     * membership it leads to from its effective instance on. Applying an instance again (replay,
     * re-delivery after a restart) changes nothing.
     *
     * @return null, or why the decided change was ignored (refused by the membership, or malformed)
     *         or is dangerous (its α is below this replica's), for the operator's log
     */
    public String apply(long instance, boolean membership, ByteBuffer change) {
        if (instance <= appliedThrough) {
            return null;
        }
        appliedThrough = instance;
        if (!membership) {
            return null;
        }
        MembershipChange c;
        try {
            c = MembershipChange.decode(change);
        } catch (IllegalArgumentException e) {
            return "instance " + instance + ": malformed membership change ignored: " + e.getMessage();
        }
        Membership base = latest();
        String refusal = base.refusal(c);
        if (refusal != null) {
            return "instance " + instance + ": " + c + " ignored: " + refusal;
        }
        long from = instance + c.alpha();
        byFrom.put(from, base.apply(c));
        return c.alpha() < alpha ? "instance " + instance + ": " + c + " has α " + c.alpha()
                + " below this replica's window " + alpha + "; every replica must run with the same paxos.window" : null;
    }

    /** Forgets memberships that no instance at or above {@code instance} uses. */
    public void truncateBelow(long instance) {
        Long floor = byFrom.floorKey(instance);
        if (floor != null) {
            byFrom.headMap(floor, false).clear();
        }
    }

    /** Binary form: {@code appliedThrough:8 count:4 (from:8 membership)*}. */
    public byte[] encode() {
        int size = 12;
        for (Membership m : byFrom.values()) {
            size += 8 + m.encodedSize();
        }
        ByteBuffer b = ByteBuffer.allocate(size).putLong(appliedThrough).putInt(byFrom.size());
        for (Map.Entry<Long, Membership> e : byFrom.entrySet()) {
            b.putLong(e.getKey());
            e.getValue().writeTo(b);
        }
        return b.array();
    }

    /**
     * Replaces this history by an encoded one ({@link #encode}) if that one has applied further
     * (a snapshot's, or the log's checkpoint).
     *
     * @return whether it was taken
     * @throws IllegalArgumentException if malformed
     */
    public boolean restore(ByteBuffer encoded) {
        ByteBuffer b = encoded.duplicate();
        try {
            long through = b.getLong();
            int count = b.getInt();
            if (count < 1 || count > 1024) {
                throw new IllegalArgumentException("membership history of " + count + " entries");
            }
            TreeMap<Long, Membership> read = new TreeMap<>();
            for (int k = 0; k < count; k++) {
                long from = b.getLong();
                read.put(from, Membership.readFrom(b));
            }
            if (b.hasRemaining()) {
                throw new IllegalArgumentException(b.remaining() + " bytes after the membership history");
            }
            if (through <= appliedThrough) {
                return false;
            }
            byFrom.clear();
            byFrom.putAll(read);
            appliedThrough = through;
            return true;
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated membership history", e);
        }
    }

    /** Every entry, for tests and status: effective instance to membership. */
    public Map<Long, Membership> entries() {
        return java.util.Collections.unmodifiableMap(byFrom);
    }

    @Override
    public String toString() {
        return byFrom.toString();
    }
}
