package dev.parallax.core.membership;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * The members of one Paxos group at one position of the order: the voters (acceptors whose votes
 * and promises form quorums), the learners (replicas that receive proposals and decisions but do
 * not vote), and the ids retired by earlier changes, which are never used again.
 *
 * <p><b>Ids and views.</b> Ids are {@code 0..}{@link #MAX_ID}; the leader of view {@code v} is
 * replica {@code v mod }{@link #ID_SPACE} whatever the membership is, so two replicas never lead
 * one view even when they disagree on the members for a while (Paxos needs one proposer per
 * ballot; a rotation over the current voters would not give that during a change). A replica
 * starts only views it leads, so views led by non-members are skipped.
 *
 * <p><b>Why retired ids stay retired.</b> A replica whose disk was wiped has forgotten its
 * promises and votes. Coming back under its old id it could vote twice in one view. It joins
 * under a new id instead, as a learner, and is promoted.
 *
 * <p>Immutable and thread-safe.
 */
public final class Membership {
    /** The size of the id space: view {@code v} is led by {@code v mod ID_SPACE}. */
    public static final int ID_SPACE = 32;
    /** The highest member id. */
    public static final int MAX_ID = ID_SPACE - 1;

    private final int voters;
    private final int learners;
    private final int retired;
    /** Addresses of members added at run time ({@code host:port}); the others come from the cluster file. */
    private final TreeMap<Integer, String> addresses;

    private Membership(int voters, int learners, int retired, Map<Integer, String> addresses) {
        this.voters = voters;
        this.learners = learners;
        this.retired = retired;
        this.addresses = new TreeMap<>(addresses);
    }

    /** The initial membership of a cluster file listing {@code n} replicas: voters {@code 0..n-1}. */
    public static Membership initial(int n) {
        if (n < 1 || n > ID_SPACE) {
            throw new IllegalArgumentException("a group has 1.." + ID_SPACE + " replicas, got " + n);
        }
        return new Membership(n == ID_SPACE ? -1 : (1 << n) - 1, 0, 0, Map.of());
    }

    /** The replica that leads {@code view}. */
    public static int leaderOf(long view) {
        return (int) Math.floorMod(view, (long) ID_SPACE);
    }

    /** The first view above {@code after} that {@code replica} leads. */
    public static long nextViewLedBy(int replica, long after) {
        long v = after + 1;
        return v + Math.floorMod(replica - leaderOf(v), ID_SPACE);
    }

    public int voters() {
        return voters;
    }

    public int learners() {
        return learners;
    }

    /** Voters and learners: every replica that receives the group's proposals and decisions. */
    public int members() {
        return voters | learners;
    }

    public int retired() {
        return retired;
    }

    public int voterCount() {
        return Integer.bitCount(voters);
    }

    /** Majority of the voters. */
    public int quorum() {
        return voterCount() / 2 + 1;
    }

    /** Whether the replicas of {@code mask} include a quorum of the voters. */
    public boolean isQuorum(int mask) {
        return Integer.bitCount(mask & voters) >= quorum();
    }

    public boolean isVoter(int id) {
        return inRange(id) && (voters & (1 << id)) != 0;
    }

    public boolean isLearner(int id) {
        return inRange(id) && (learners & (1 << id)) != 0;
    }

    public boolean isMember(int id) {
        return isVoter(id) || isLearner(id);
    }

    /** The address given for {@code id} when it was added, or null for a member of the cluster file. */
    public String address(int id) {
        return addresses.get(id);
    }

    /** Addresses of members added at run time, by id. */
    public Map<Integer, String> addresses() {
        return java.util.Collections.unmodifiableMap(addresses);
    }

    /** The first voter after {@code id} in id order, wrapping (there is always one). */
    public int voterAfter(int id) {
        for (int k = 1; k <= ID_SPACE; k++) {
            int c = Math.floorMod(id + k, ID_SPACE);
            if (isVoter(c)) {
                return c;
            }
        }
        throw new IllegalStateException("no voter");
    }

    /**
     * A follower's rank after {@code leader} among the voters (0 for the next voter in id order,
     * wrapping): what staggers suspect timeouts. A non-voter ranks last.
     */
    public int rankAfter(int self, int leader) {
        if (!isVoter(self)) {
            return Math.max(0, voterCount() - 1);
        }
        int rank = 0;
        for (int k = 1; k < ID_SPACE; k++) {
            int id = Math.floorMod(leader + k, ID_SPACE);
            if (id == self) {
                return rank;
            }
            if (isVoter(id)) {
                rank++;
            }
        }
        return rank;
    }

    /**
     * Why {@code change} cannot be applied to this membership, or null if it can: an id out of
     * range, in use, retired, not a member, a promotion of a non-learner, a removal of the last
     * voter. Every replica decides the same: a refused change decided in the order is a no-op.
     */
    public String refusal(MembershipChange change) {
        int id = change.id();
        switch (change.kind()) {
            case ADD_LEARNER -> {
                return fresh(id);
            }
            case PROMOTE -> {
                return isLearner(id) ? null : "replica " + id + " is not a learner of " + describe();
            }
            case REMOVE -> {
                if (!isMember(id)) {
                    return "replica " + id + " is not a member of " + describe();
                }
                return isVoter(id) && voterCount() == 1 ? "replica " + id + " is the last voter" : null;
            }
            case REPLACE -> {
                if (!isVoter(id)) {
                    return "replica " + id + " is not a voter of " + describe();
                }
                if (isLearner(change.newId())) {
                    return null;
                }
                return fresh(change.newId());
            }
            default -> throw new AssertionError(change.kind());
        }
    }

    private String fresh(int id) {
        if (!inRange(id)) {
            return "replica id " + id + " is outside 0.." + MAX_ID;
        }
        if (isMember(id)) {
            return "replica " + id + " is already a member of " + describe();
        }
        if ((retired & (1 << id)) != 0) {
            return "replica id " + id + " was removed before; a replaced or wiped replica joins under a new id";
        }
        return null;
    }

    /**
     * This membership after {@code change}; this one itself if {@link #refusal} refuses it.
     */
    public Membership apply(MembershipChange change) {
        if (refusal(change) != null) {
            return this;
        }
        int id = change.id();
        int bit = 1 << id;
        TreeMap<Integer, String> addr = new TreeMap<>(addresses);
        return switch (change.kind()) {
            case ADD_LEARNER -> {
                addr.put(id, change.address());
                yield new Membership(voters, learners | bit, retired, addr);
            }
            case PROMOTE -> new Membership(voters | bit, learners & ~bit, retired, addr);
            case REMOVE -> {
                addr.remove(id);
                yield new Membership(voters & ~bit, learners & ~bit, retired | bit, addr);
            }
            case REPLACE -> {
                int nb = 1 << change.newId();
                addr.remove(id);
                if (!isLearner(change.newId())) {
                    addr.put(change.newId(), change.address());
                }
                yield new Membership((voters & ~bit) | nb, learners & ~nb, retired | bit, addr);
            }
        };
    }

    /** Whether this is a membership after {@code change} (it shows the change's outcome). */
    public boolean reflects(MembershipChange change) {
        return switch (change.kind()) {
            case ADD_LEARNER -> isMember(change.id());
            case PROMOTE -> isVoter(change.id());
            case REMOVE -> !isMember(change.id());
            case REPLACE -> !isMember(change.id()) && isVoter(change.newId());
        };
    }

    /** {@code voters=[0,1,2] learners=[3]}, with added addresses. */
    public String describe() {
        StringBuilder sb = new StringBuilder("voters=").append(ids(voters)).append(" learners=").append(ids(learners));
        if (!addresses.isEmpty()) {
            sb.append(" added=").append(addresses);
        }
        return sb.toString();
    }

    /** The ids of {@code mask}, ascending, as {@code [0, 1, 2]}. */
    public static String ids(int mask) {
        StringBuilder sb = new StringBuilder("[");
        for (int id = 0; id < ID_SPACE; id++) {
            if ((mask & (1 << id)) != 0) {
                sb.append(sb.length() > 1 ? "," : "").append(id);
            }
        }
        return sb.append(']').toString();
    }

    private static boolean inRange(int id) {
        return id >= 0 && id <= MAX_ID;
    }

    /** Binary form: {@code voters:4 learners:4 retired:4 count:4 (id:4 length:4 utf8)*}. */
    public void writeTo(ByteBuffer out) {
        out.putInt(voters).putInt(learners).putInt(retired).putInt(addresses.size());
        for (Map.Entry<Integer, String> e : addresses.entrySet()) {
            byte[] a = e.getValue().getBytes(StandardCharsets.UTF_8);
            out.putInt(e.getKey()).putInt(a.length).put(a);
        }
    }

    /** Bytes {@link #writeTo} writes. */
    public int encodedSize() {
        int size = 16;
        for (String a : addresses.values()) {
            size += 8 + a.getBytes(StandardCharsets.UTF_8).length;
        }
        return size;
    }

    /**
     * Reads what {@link #writeTo} wrote.
     *
     * @throws IllegalArgumentException if malformed (overlapping sets, an id or length out of range)
     */
    public static Membership readFrom(ByteBuffer in) {
        try {
            int v = in.getInt();
            int l = in.getInt();
            int r = in.getInt();
            int count = in.getInt();
            if ((v & l) != 0 || ((v | l) & r) != 0 || v == 0 || count < 0 || count > ID_SPACE) {
                throw new IllegalArgumentException("malformed membership: voters " + ids(v) + " learners "
                        + ids(l) + " retired " + ids(r) + " addresses " + count);
            }
            TreeMap<Integer, String> addr = new TreeMap<>();
            for (int k = 0; k < count; k++) {
                int id = in.getInt();
                int len = in.getInt();
                if (!inRange(id) || len < 0 || len > MembershipChange.MAX_ADDRESS_BYTES || len > in.remaining()) {
                    throw new IllegalArgumentException("malformed membership address entry for id " + id);
                }
                byte[] a = new byte[len];
                in.get(a);
                addr.put(id, new String(a, StandardCharsets.UTF_8));
            }
            return new Membership(v, l, r, addr);
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated membership", e);
        }
    }

    /**
     * This membership with every id {@code i} renumbered {@code to.applyAsInt(i)} (an id it maps
     * below 0 or past {@link #MAX_ID} is left out): one order's member ids in the ids of the
     * replicas, where an order numbers them its own way (Multi-Ring Paxos' rings).
     */
    public Membership renumbered(java.util.function.IntUnaryOperator to) {
        int v = 0;
        int l = 0;
        int r = 0;
        TreeMap<Integer, String> addr = new TreeMap<>();
        for (int id = 0; id < ID_SPACE; id++) {
            int bit = 1 << id;
            int t = to.applyAsInt(id);
            if ((bit & (voters | learners | retired)) == 0 || !inRange(t)) {
                continue;
            }
            int nb = 1 << t;
            v |= (voters & bit) != 0 ? nb : 0;
            l |= (learners & bit) != 0 ? nb : 0;
            r |= (retired & bit) != 0 ? nb : 0;
            if (addresses.containsKey(id)) {
                addr.put(t, addresses.get(id));
            }
        }
        return new Membership(v, l, r, addr);
    }

    /**
     * The members of a group whose parts (several orders, Multi-Ring Paxos' rings; under S-SMR each
     * partition's ring and the global ring) each decide their own: voters those that vote in some
     * part and are a learner or retired in none (a voter of every part it belongs to), learners the
     * other members of any part, retired those retired in any part; addresses from every part.
     *
     * @throws IllegalArgumentException if {@code parts} is empty
     */
    public static Membership common(java.util.Collection<Membership> parts) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("no parts");
        }
        int v = 0;
        int l = 0;
        int r = 0;
        TreeMap<Integer, String> addr = new TreeMap<>();
        for (Membership m : parts) {
            v |= m.voters;
            l |= m.learners;
            r |= m.retired;
            addr.putAll(m.addresses);
        }
        l &= ~r;
        return new Membership(v & ~l & ~r, l, r, addr);
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof Membership m && m.voters == voters && m.learners == learners
                && m.retired == retired && m.addresses.equals(addresses);
    }

    @Override
    public int hashCode() {
        return ((voters * 31 + learners) * 31 + retired) * 31 + addresses.hashCode();
    }

    @Override
    public String toString() {
        return describe();
    }
}
