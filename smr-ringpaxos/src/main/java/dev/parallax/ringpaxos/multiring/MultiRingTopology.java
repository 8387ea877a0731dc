package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Which processes run which rings of a Multi-Ring Paxos deployment, and which ring orders each
 * group (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5 §5.2: groups are mapped to rings, and
 * a learner joins only the rings it needs). Rings {@code 0..k-1} plus, when k &gt; 1, the global
 * ring ({@link MulticastPosition#GLOBAL_STREAM}, for messages to groups of several rings). Each
 * ring has its members (process ids; every member an acceptor, learner and proposer, a majority
 * of them on the ring as Ring Paxos lays them out; 1..31 of them, odd or even: quorums are
 * majorities, {@link RingConfig#quorum()}), its kind (U-Ring or M-Ring) and,
 * for M-Ring, its datagram group address. A process runs only the rings it is a member of, may
 * subscribe only to the groups whose rings it runs (and only if it runs the global ring), and may
 * multicast to any group (a message for a ring it does not run is forwarded to a member).
 *
 * <p><b>Cluster-file keys</b> ({@link #parse(Map, int)}), with their defaults:
 * <pre>
 * multiring.rings=2                       # k: rings 0..k-1 (1..64), and the global ring if k &gt; 1
 * multiring.kind=m-ring                   # every ring's kind unless set per ring: m-ring | u-ring
 * mring.group=239.255.80.1  mring.port=7400   # ring i's datagram group: mring.group, port mring.port + i
 * multiring.ring.&lt;i&gt;.members=0,1,2        # ring i's processes; default every process
 * multiring.ring.&lt;i&gt;.joiners=6,7         # replicas that may join ring i at run time (a partition's; ring.member.ids)
 * multiring.ring.&lt;i&gt;.kind=u-ring           # default multiring.kind
 * multiring.ring.&lt;i&gt;.group=239.255.80.1:7401   # M-Ring datagram address, default as above
 * multiring.ring.global.members=...       # the global ring (its index is k: port mring.port + k)
 * multiring.ring.global.kind=...  multiring.ring.global.group=...
 * multiring.group.&lt;g&gt;=&lt;ring&gt;               # group g's ring; default: groups 0..k-1 to rings 0..k-1
 * </pre>
 * The groups are 0..k-1 and every group named by a {@code multiring.group.<g>} key. Defaults give a
 * local cluster of up to 31 processes every ring on every process, rings on consecutive
 * ports of one datagram group.
 *
 * <p><b>Checks</b> (each an {@link IllegalArgumentException} naming the key): an unknown ring or
 * key under {@code multiring.ring.}, an empty member list, a member out of 0..processes-1 or named
 * twice, more than 31 members (also by default: every process), an unknown kind, a bad address, a
 * group mapped to a missing ring, a ring no group is mapped to, two M-Ring rings on one datagram
 * address.
 *
 * <p>Immutable and thread-safe.
 */
public final class MultiRingTopology {
    /** Default {@code multiring.rings}. */
    public static final int DEFAULT_RINGS = 2;
    /** Default {@code mring.group}. */
    public static final String DEFAULT_DATAGRAM_GROUP = "239.255.80.1";
    /** Default {@code mring.port}: ring i's port is this + i. */
    public static final int DEFAULT_DATAGRAM_PORT = 7400;
    /** The global ring's id: {@link MulticastPosition#GLOBAL_STREAM}. */
    public static final int GLOBAL = MulticastPosition.GLOBAL_STREAM;

    private final int processes;
    private final int[] ringIds;
    private final Map<Integer, int[]> members;
    /** Per ring, the replica ids that may join it at run time (none unless the rings change their members). */
    private final Map<Integer, int[]> joiners;
    private final Map<Integer, Ring.Kind> kinds;
    private final Map<Integer, String> hosts;
    private final Map<Integer, Integer> ports;
    private final TreeMap<Integer, Integer> groupRings;
    private final GroupSet groups;

    private MultiRingTopology(Builder b) {
        this.processes = b.processes;
        int k = b.rings;
        this.ringIds = new int[k + (k > 1 ? 1 : 0)];
        for (int i = 0; i < k; i++) {
            ringIds[i] = i;
        }
        if (k > 1) {
            ringIds[k] = GLOBAL;
        }
        this.members = new HashMap<>();
        this.joiners = new HashMap<>();
        this.kinds = new HashMap<>();
        this.hosts = new HashMap<>();
        this.ports = new HashMap<>();
        for (int index = 0; index < ringIds.length; index++) {
            int ring = ringIds[index];
            int[] m = b.members.get(ring);
            if (m == null) {
                m = new int[processes];
                Arrays.setAll(m, p -> p);
            }
            members.put(ring, m);
            joiners.put(ring, b.joiners.getOrDefault(ring, new int[0]));
            kinds.put(ring, b.kinds.getOrDefault(ring, b.kind));
            hosts.put(ring, b.hosts.getOrDefault(ring, b.datagramGroup));
            ports.put(ring, b.ports.getOrDefault(ring, b.datagramPort + index));
        }
        if (k > 1 && !b.joiners.containsKey(GLOBAL)) {
            // Every replica of a group ring runs the global ring: so does one that joins a group ring.
            joiners.put(GLOBAL, b.joiners.values().stream().flatMapToInt(Arrays::stream).distinct().sorted().toArray());
        }
        this.groupRings = new TreeMap<>();
        for (int g = 0; g < k; g++) {
            groupRings.put(g, g);
        }
        groupRings.putAll(b.groupRings);
        long bits = 0;
        for (int g : groupRings.keySet()) {
            bits |= 1L << g;
        }
        this.groups = GroupSet.ofBits(bits);
    }

    /** A builder: {@code processes} processes, {@value #DEFAULT_RINGS} rings, every default set. */
    public static Builder builder(int processes) {
        return new Builder(processes);
    }

    /**
     * The topology the cluster-file keys give (see the class comment); other keys are ignored.
     *
     * @param processes how many processes the cluster has (ids 0..processes-1)
     * @throws IllegalArgumentException for any bad key or combination, naming the key
     */
    public static MultiRingTopology parse(Map<String, String> keys, int processes) {
        Builder b = builder(processes);
        String k = keys.get("multiring.rings");
        if (k != null) {
            b.rings(integer("multiring.rings", k));
        }
        String kind = keys.get("multiring.kind");
        if (kind != null) {
            b.kind(kind("multiring.kind", kind));
        }
        String host = keys.get("mring.group");
        String port = keys.get("mring.port");
        if (host != null || port != null) {
            b.datagram(host != null ? host.trim() : DEFAULT_DATAGRAM_GROUP,
                    port != null ? integer("mring.port", port) : DEFAULT_DATAGRAM_PORT);
        }
        for (Map.Entry<String, String> e : new TreeMap<>(keys).entrySet()) {
            String key = e.getKey();
            String value = e.getValue();
            if (key.startsWith("multiring.ring.")) {
                String rest = key.substring("multiring.ring.".length());
                int dot = rest.lastIndexOf('.');
                if (dot <= 0) {
                    throw new IllegalArgumentException(key + ": expected multiring.ring.<i|global>.<members|joiners|kind|group>");
                }
                String name = rest.substring(0, dot);
                int ring;
                try {
                    ring = name.equals("global") ? GLOBAL : Integer.parseInt(name);
                    if (ring == GLOBAL && !name.equals("global")) {
                        throw new NumberFormatException(name);
                    }
                } catch (NumberFormatException ex) {
                    throw new IllegalArgumentException(key + ": unknown ring '" + name + "' (a ring number or global)");
                }
                switch (rest.substring(dot + 1)) {
                    case "members" -> b.ring(ring, processList(key, value));
                    case "joiners" -> b.joiners(ring, processList(key, value));
                    case "kind" -> b.ringKind(ring, kind(key, value));
                    case "group" -> {
                        String v = value.trim();
                        int colon = v.lastIndexOf(':');
                        if (colon <= 0 || colon == v.length() - 1) {
                            throw new IllegalArgumentException(key + " must be <address>:<port>, got '" + value + "'");
                        }
                        b.ringAddress(ring, v.substring(0, colon), integer(key + " (port)", v.substring(colon + 1)));
                    }
                    default -> throw new IllegalArgumentException(key + ": unknown key (members, joiners, kind or group)");
                }
            } else if (key.startsWith("multiring.group.")) {
                int group = integer(key + " (group)", key.substring("multiring.group.".length()));
                b.group(group, integer(key, value));
            }
        }
        try {
            return b.build();
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("multiring topology: " + ex.getMessage(), ex);
        }
    }

    /**
     * {@link #parse(Map, int)} with the process count taken from the cluster file's
     * {@code members} key (its comma-separated entries, e.g. {@code 0=h:7000,1=h:7001,2=h:7002}).
     *
     * @throws IllegalArgumentException if {@code members} is missing, or as {@link #parse(Map, int)}
     */
    public static MultiRingTopology parse(Map<String, String> keys) {
        String m = keys.get("members");
        if (m == null || m.isBlank()) {
            throw new IllegalArgumentException("'members' is required to count the processes of the multiring topology");
        }
        int n = 0;
        for (String entry : m.split(",")) {
            if (!entry.isBlank()) {
                n++;
            }
        }
        return parse(keys, n);
    }

    private static int integer(String key, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be an integer, got '" + value + "'");
        }
    }

    private static Ring.Kind kind(String key, String value) {
        return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "m-ring" -> Ring.Kind.M_RING;
            case "u-ring" -> Ring.Kind.U_RING;
            default -> throw new IllegalArgumentException(key + " must be m-ring or u-ring, got '" + value + "'");
        };
    }

    private static int[] processList(String key, String value) {
        List<Integer> out = new ArrayList<>();
        for (String p : value.split(",")) {
            if (!p.isBlank()) {
                out.add(integer(key, p));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(key + " is empty: a ring needs members");
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /** How many processes (ids 0..processes-1). */
    public int processes() {
        return processes;
    }

    /** k: rings 0..k-1, not counting the global ring. */
    public int rings() {
        return ringIds.length > 1 ? ringIds.length - 1 : ringIds.length;
    }

    /** Every ring's id: 0..k-1, then {@link #GLOBAL} if k &gt; 1. A new array. */
    public int[] ringIds() {
        return ringIds.clone();
    }

    /** The groups offered: 0..k-1 and every group mapped by {@code multiring.group.<g>}. */
    public GroupSet groups() {
        return groups;
    }

    /**
     * The ring ordering group {@code group}.
     *
     * @throws IllegalArgumentException if the group is not offered
     */
    public int ringOf(int group) {
        Integer ring = groupRings.get(group);
        if (ring == null) {
            throw new IllegalArgumentException("group " + group + " is not offered (groups " + groups + ")");
        }
        return ring;
    }

    /**
     * The processes that run {@code ring}, in increasing id (a new array).
     *
     * @throws IllegalArgumentException if there is no such ring
     */
    public int[] members(int ring) {
        return ring(ring, members).clone();
    }

    /**
     * The replica ids that may join {@code ring} at run time, in increasing id (a new array): the
     * {@code multiring.ring.<i>.joiners} of a partitioned deployment (the global ring: every group
     * ring's), every id from the file's members up to {@code ring.member.ids} − 1 otherwise
     * ({@link #withJoiners}); none where the members are fixed.
     */
    public int[] joiners(int ring) {
        return ring(ring, joiners).clone();
    }

    /** Whether {@code process} runs {@code ring}: one of its processes, or a replica that may join it. */
    public boolean runs(int process, int ring) {
        return Arrays.binarySearch(ring(ring, members), process) >= 0 || Arrays.binarySearch(ring(ring, joiners), process) >= 0;
    }

    /** This topology with {@code ids} as the joiners of every ring (the rings of an unpartitioned deployment). */
    public MultiRingTopology withJoiners(int[] ids) {
        Builder b = new Builder(processes).rings(rings());
        for (int ring : ringIds) {
            b.ring(ring, members.get(ring)).ringKind(ring, kinds.get(ring)).ringAddress(ring, hosts.get(ring), ports.get(ring))
                    .joiners(ring, ids);
        }
        groupRings.forEach(b::group);
        return b.build();
    }

    /** {@code ring}'s kind. */
    public Ring.Kind kind(int ring) {
        return ring(ring, kinds);
    }

    /** {@code ring}'s M-Ring datagram group address. */
    public String datagramGroup(int ring) {
        return ring(ring, hosts);
    }

    /** {@code ring}'s M-Ring datagram port. */
    public int datagramPort(int ring) {
        return ring(ring, ports);
    }

    /**
     * Whether process {@code process} may subscribe to {@code target} (offered groups): it runs
     * their rings and, when there is one, the global ring (as {@link RingMulticast#canSubscribe}).
     */
    public boolean canSubscribe(int process, GroupSet target) {
        if ((target.bits() & ~groups.bits()) != 0 || (ringIds.length > 1 && !runs(process, GLOBAL))) {
            return false;
        }
        for (int g = target.first(); g >= 0; g = target.next(g)) {
            if (!runs(process, groupRings.get(g))) {
                return false;
            }
        }
        return true;
    }

    /**
     * A {@link RingConfig} builder for {@code ring}: n = its member count, its kind, its datagram
     * address; every other setting at its default (callers add timeouts, λ is set by
     * {@link RingMulticast}).
     */
    public RingConfig.Builder ringConfig(int ring) {
        return RingConfig.builder(ring(ring, members).length, kind(ring)).mringGroup(datagramGroup(ring))
                .mringPort(datagramPort(ring));
    }

    private <T> T ring(int ring, Map<Integer, T> of) {
        T t = of.get(ring);
        if (t == null) {
            throw new IllegalArgumentException("no ring " + ring + " (rings " + Arrays.toString(ringIds) + ")");
        }
        return t;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("MultiRingTopology{processes=").append(processes);
        for (int ring : ringIds) {
            sb.append(", ring ").append(ring == GLOBAL ? "global" : Integer.toString(ring)).append('=')
                    .append(Arrays.toString(members.get(ring))).append(' ').append(kinds.get(ring));
            if (kinds.get(ring) == Ring.Kind.M_RING) {
                sb.append(' ').append(hosts.get(ring)).append(':').append(ports.get(ring));
            }
        }
        return sb.append(", groups=").append(groupRings).append('}').toString();
    }

    /** Mutable builder, not thread-safe; every setting has the default of its cluster-file key. */
    public static final class Builder {
        private final int processes;
        private int rings = DEFAULT_RINGS;
        private Ring.Kind kind = Ring.Kind.M_RING;
        private String datagramGroup = DEFAULT_DATAGRAM_GROUP;
        private int datagramPort = DEFAULT_DATAGRAM_PORT;
        private final Map<Integer, int[]> members = new HashMap<>();
        private final Map<Integer, int[]> joiners = new HashMap<>();
        private final Map<Integer, Ring.Kind> kinds = new HashMap<>();
        private final Map<Integer, String> hosts = new HashMap<>();
        private final Map<Integer, Integer> ports = new HashMap<>();
        private final Map<Integer, Integer> groupRings = new HashMap<>();

        private Builder(int processes) {
            this.processes = processes;
        }

        /** {@code multiring.rings}: k, rings 0..k-1 (and the global ring if k &gt; 1); default 2. */
        public Builder rings(int k) {
            this.rings = k;
            return this;
        }

        /** {@code multiring.kind}: every ring's kind unless {@link #ringKind} sets it; default M-Ring. */
        public Builder kind(Ring.Kind kind) {
            this.kind = Objects.requireNonNull(kind);
            return this;
        }

        /** {@code mring.group} / {@code mring.port}: ring i (global: k) defaults to {@code group:port + i}. */
        public Builder datagram(String group, int basePort) {
            this.datagramGroup = Objects.requireNonNull(group);
            this.datagramPort = basePort;
            return this;
        }

        /** {@code multiring.ring.<i>.members}: ring {@code ring}'s processes ({@link #GLOBAL}: the global ring). */
        public Builder ring(int ring, int... processes) {
            members.put(ring, processes.clone());
            return this;
        }

        /**
         * {@code multiring.ring.<i>.joiners}: replica ids that may join ring {@code ring} at run time
         * (each at or above the process count, up to 31, none a member already); default none, and
         * for the global ring every group ring's.
         */
        public Builder joiners(int ring, int... ids) {
            joiners.put(ring, ids.clone());
            return this;
        }

        /** {@code multiring.ring.global.members}. */
        public Builder global(int... processes) {
            return ring(GLOBAL, processes);
        }

        /** {@code multiring.ring.<i>.kind}. */
        public Builder ringKind(int ring, Ring.Kind kind) {
            kinds.put(ring, Objects.requireNonNull(kind));
            return this;
        }

        /** {@code multiring.ring.<i>.group}: ring {@code ring}'s M-Ring datagram address. */
        public Builder ringAddress(int ring, String group, int port) {
            hosts.put(ring, Objects.requireNonNull(group));
            ports.put(ring, port);
            return this;
        }

        /** {@code multiring.group.<g>}: group {@code group} is ordered by ring {@code ring} (0..k-1). */
        public Builder group(int group, int ring) {
            groupRings.put(group, ring);
            return this;
        }

        /**
         * @throws IllegalArgumentException for any bad value or combination (see the class comment)
         */
        public MultiRingTopology build() {
            if (processes < 1) {
                throw new IllegalArgumentException("a multiring topology needs at least one process, got " + processes);
            }
            if (rings < 1 || rings > GroupSet.MAX_GROUP + 1) {
                throw new IllegalArgumentException("multiring.rings must be 1.." + (GroupSet.MAX_GROUP + 1) + ", got " + rings);
            }
            String known = "rings 0.." + (rings - 1) + (rings > 1 ? " and global" : "") + " (multiring.rings=" + rings + ")";
            for (Map<Integer, ?> m : List.of(members, joiners, kinds, hosts)) {
                for (int ring : m.keySet()) {
                    if (!(ring >= 0 && ring < rings) && !(ring == GLOBAL && rings > 1)) {
                        throw new IllegalArgumentException("multiring.ring." + name(ring) + ": unknown ring; there are " + known);
                    }
                }
            }
            for (Map.Entry<Integer, int[]> e : members.entrySet()) {
                String key = "multiring.ring." + name(e.getKey()) + ".members";
                int[] sorted = e.getValue().clone();
                Arrays.sort(sorted);
                if (sorted.length == 0) {
                    throw new IllegalArgumentException(key + " is empty: a ring needs members");
                }
                for (int i = 0; i < sorted.length; i++) {
                    if (sorted[i] < 0 || sorted[i] >= processes) {
                        throw new IllegalArgumentException(key + ": member " + sorted[i] + " is not a process 0.."
                                + (processes - 1));
                    }
                    if (i > 0 && sorted[i] == sorted[i - 1]) {
                        throw new IllegalArgumentException(key + ": member " + sorted[i] + " is named twice");
                    }
                }
                e.setValue(sorted);
            }
            for (Map.Entry<Integer, int[]> e : joiners.entrySet()) {
                String key = "multiring.ring." + name(e.getKey()) + ".joiners";
                int[] sorted = e.getValue().clone();
                Arrays.sort(sorted);
                for (int i = 0; i < sorted.length; i++) {
                    if (sorted[i] < processes || sorted[i] > 31) {
                        throw new IllegalArgumentException(key + ": " + sorted[i] + " is not an id a replica may join under: "
                                + processes + "..31 (the file's members are 0.." + (processes - 1) + ")");
                    }
                    if (i > 0 && sorted[i] == sorted[i - 1]) {
                        throw new IllegalArgumentException(key + ": " + sorted[i] + " is named twice");
                    }
                }
                e.setValue(sorted);
            }
            for (int ring = 0; ring < rings + 1; ring++) {
                int id = ring < rings ? ring : GLOBAL;
                if (ring == rings && rings == 1) {
                    break;
                }
                int n = members.containsKey(id) ? members.get(id).length : processes;
                if (n > 31) {
                    throw new IllegalArgumentException("multiring.ring." + name(id) + ".members: a ring has at most 31 "
                            + "members; it has " + n + (members.containsKey(id) ? ""
                            : " (default: every process; name its members)"));
                }
            }
            for (Map.Entry<Integer, Integer> e : groupRings.entrySet()) {
                if (e.getKey() < 0 || e.getKey() > GroupSet.MAX_GROUP) {
                    throw new IllegalArgumentException("multiring.group." + e.getKey() + ": a group is 0.." + GroupSet.MAX_GROUP);
                }
                if (e.getValue() < 0 || e.getValue() >= rings) {
                    throw new IllegalArgumentException("multiring.group." + e.getKey() + "=" + e.getValue()
                            + ": no such ring; there are " + known + " (a group may not be mapped to the global ring)");
                }
            }
            for (Map.Entry<Integer, String> e : hosts.entrySet()) {
                if (e.getValue().isBlank()) {
                    throw new IllegalArgumentException("multiring.ring." + name(e.getKey()) + ".group: empty address");
                }
            }
            if (datagramGroup.isBlank()) {
                throw new IllegalArgumentException("mring.group: empty address");
            }
            MultiRingTopology t = new MultiRingTopology(this);
            Map<String, Integer> addresses = new HashMap<>();
            for (int ring : t.ringIds) {
                if (t.ports.get(ring) < 1 || t.ports.get(ring) > 65535) {
                    throw new IllegalArgumentException("multiring.ring." + name(ring) + ".group: port must be 1..65535, got "
                            + t.ports.get(ring) + (ports.containsKey(ring) ? "" : " (mring.port + ring index)"));
                }
                if (!t.groupRings.containsValue(ring) && ring != GLOBAL) {
                    throw new IllegalArgumentException("ring " + ring + " orders no group (multiring.group.<g>=" + ring
                            + " for none): map a group to it or lower multiring.rings");
                }
                if (t.kinds.get(ring) == Ring.Kind.M_RING) {
                    String address = t.hosts.get(ring) + ":" + t.ports.get(ring);
                    Integer other = addresses.putIfAbsent(address, ring);
                    if (other != null) {
                        throw new IllegalArgumentException("multiring.ring." + name(ring) + ".group: rings " + name(other)
                                + " and " + name(ring) + " both use datagram address " + address);
                    }
                }
            }
            return t;
        }

        private static String name(int ring) {
            return ring == GLOBAL ? "global" : Integer.toString(ring);
        }
    }
}
