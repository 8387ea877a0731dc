package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.GroupSet;
import dev.parallax.core.config.ConfigKey;
import dev.parallax.core.config.ConfigValues;
import dev.parallax.core.config.Settings;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.RingKeys;

import java.time.Duration;
import java.util.Objects;

/**
 * The configuration of Multi-Ring Paxos as a replica's ordering protocol ({@link MultiRing}): k group
 * rings (groups 0..k-1) and, with k &gt; 1, the global ring, every ring of one variant (U-Ring or
 * M-Ring), merged M logical indices at a time, every ring skipping at rate λ every Δ (seed 003
 * (Ring Paxos / Multi-Ring / P-SMR) ch. 5 §5.2, Alg. 1). Every other per-ring setting (timeouts,
 * window, batching, the M-Ring datagram group) comes from one {@link RingConfig} template; ring i
 * of an M-Ring cluster uses the template's datagram port + i (the global ring + k).
 *
 * <p><b>Topology</b> ({@link Builder#topology}, the cluster file's {@code multiring.ring.*} and
 * {@code multiring.group.*} keys): per ring its kind and M-Ring datagram address, and the group →
 * ring mapping. Default: k rings and the global ring, every ring of {@link #kind()}, ring i on the
 * template's datagram group, port + i (the global ring + k), group g → ring g. In this ordering every
 * replica subscribes to every group, so every ring must run on every replica: a topology whose
 * ring leaves a replica out is refused (rings over a subset of processes are for
 * {@link RingMulticast} used directly).
 *
 * <p>Defaults: {@value #DEFAULT_RINGS} rings, {@link Ring.Kind#M_RING}, M = {@value #DEFAULT_ROUND_LENGTH},
 * λ = {@value #DEFAULT_LAMBDA} instances per second, Δ = 5 ms, the rest {@link RingConfig}'s
 * defaults. Cluster file keys ({@link MultiRingKeys#config}): {@code multiring.rings}, {@code multiring.kind},
 * {@code multiring.m} and the topology keys ({@link MultiRingKeys}), {@code ring.lambda}, {@code ring.delta.ms}
 * and the other {@code ring.*} / {@code mring.*} keys ({@link RingKeys}).
 *
 * <p>Every parameter that is a cluster-file key is declared once, as a {@link ConfigKey} of
 * {@link MultiRingKeys#VALUES} ({@code multiring.rings}, {@code multiring.kind}, {@code multiring.m},
 * {@code ring.lambda} with Multi-Ring's default and check, {@code ring.delta.ms}), and held in one
 * {@link ConfigValues} read back by a one-line accessor; the ring template, the topology and the
 * member count are plain state.
 *
 * <p>Immutable and thread-safe; the {@link Builder} is not thread-safe.
 */
public final class MultiRingConfig {
    /** Default k, the number of group rings. */
    public static final int DEFAULT_RINGS = 2;
    /** Default M, logical indices the merge takes from each ring in turn. */
    public static final int DEFAULT_ROUND_LENGTH = 1;
    /** Default λ, logical instances per second every ring's coordinator keeps its ring at. */
    public static final long DEFAULT_LAMBDA = 20_000;
    /** Default Δ, how often a coordinator checks whether a skip is due: {@code ring.delta.ms}'s default. */
    public static final Duration DEFAULT_SKIP_INTERVAL = RingKeys.DELTA.defaultValue();
    /** The most group rings: one per group id of a {@link GroupSet}. */
    public static final int MAX_RINGS = GroupSet.MAX_GROUP + 1;

    private final ConfigValues values;
    private final RingConfig ring;
    private final MultiRingTopology topology;

    private MultiRingConfig(ConfigValues values, RingConfig ring, MultiRingTopology topology) {
        this.values = values;
        this.ring = ring;
        this.topology = topology;
    }

    /** A builder for {@code members} replicas with every default (M-Ring rings, {@link RingConfig}'s settings). */
    public static Builder builder(int members) {
        return new Builder(RingConfig.builder(members, Ring.Kind.M_RING).build());
    }

    /** The value of {@code key}, one of {@link MultiRingKeys#VALUES}' (its default if not set). */
    public <T> T get(ConfigKey<T> key) { return values.get(key); }

    /** {@code multiring.rings}: k, the number of group rings (groups 0..k-1; the topology's, if one was given). */
    public int rings() { return values.get(MultiRingKeys.RINGS); }

    /** {@code multiring.kind}: the default variant of the rings; per ring see {@link #kind(int)}. */
    public Ring.Kind kind() { return MultiRingKeys.kind(values.get(MultiRingKeys.KIND)); }

    /** The variant of ring number {@code index} (0..k-1 the group rings, k the global ring). */
    public Ring.Kind kind(int index) {
        return topology.kind(ringId(index));
    }

    /** Whether some ring is an M-Ring ring (it needs a datagram group). */
    public boolean anyMRing() {
        for (int id : topology.ringIds()) {
            if (topology.kind(id) == Ring.Kind.M_RING) {
                return true;
            }
        }
        return false;
    }

    /** The rings, their kinds and datagram addresses, and the group → ring mapping. */
    public MultiRingTopology topology() {
        return topology;
    }

    /** The ring id (stream id) of ring number {@code index}: the index, or the global ring's id for k. */
    private int ringId(int index) {
        if (index < 0 || index >= streams()) {
            throw new IllegalArgumentException("ring index must be 0.." + (streams() - 1) + ", got " + index);
        }
        return index == rings() && rings() > 1 ? MultiRingTopology.GLOBAL : index;
    }

    /** n, the replicas of the cluster file (every one a member of every ring). */
    public int members() {
        return ring.members();
    }

    /**
     * Whether the rings change their members at run time ({@code ring.member.ids} set): every ring
     * then decides its member set (rules G1–G8 of Ring Paxos' member sets), and a replica joined
     * later, id N or above, may become a member of every ring.
     */
    public boolean membershipChanges() {
        return ring.membershipChanges();
    }

    /** The replica ids the rings may ever use: {@code ring.member.ids}, or n if the members are fixed. */
    public int idSpace() {
        return ring.idSpace();
    }

    /** {@code multiring.m}: M. */
    public int roundLength() { return values.get(MultiRingKeys.M); }

    /** {@code ring.lambda}: λ, instances per second. */
    public long lambda() { return values.get(MultiRingKeys.LAMBDA); }

    /** {@code ring.delta.ms}: Δ. */
    public Duration skipInterval() { return values.get(RingKeys.DELTA); }

    /** The streams ordered: k group rings, plus the global ring when k &gt; 1. */
    public int streams() {
        return rings() > 1 ? rings() + 1 : 1;
    }

    /** The groups offered: 0..k-1 and every group the topology maps to a ring. */
    public GroupSet groups() {
        return topology.groups();
    }

    /**
     * The settings of ring number {@code index} (0..k-1 the group rings, k the global ring): the
     * template with the ring's kind and datagram address from the {@link #topology()} (by default
     * the template's datagram group, port + index), this configuration's λ and Δ.
     */
    public RingConfig ring(int index) {
        int id = ringId(index);
        return ring.toBuilder(topology.kind(id), topology.members(id).length).lambda(lambda()).skipInterval(skipInterval())
                .mringGroup(topology.datagramGroup(id)).mringPort(topology.datagramPort(id)).build();
    }

    /** The template every ring's settings come from (its λ, Δ and port are replaced per ring). */
    public RingConfig template() {
        return ring;
    }

    @Override
    public String toString() {
        return "MultiRingConfig{rings=" + rings() + ", kind=" + kind() + ", m=" + roundLength() + ", lambda=" + lambda()
                + ", delta=" + skipInterval() + ", topology=" + topology + ", ring=" + ring + "}";
    }

    /**
     * Mutable builder, not thread-safe; setters check their argument at once (each key's check, its
     * message naming the key), {@link #build} the combination. Every key starts at its
     * {@link MultiRingKeys#VALUES} default.
     */
    public static final class Builder {
        private final ConfigValues.Builder values = ConfigValues.builder(MultiRingKeys.VALUES);
        private RingConfig ring;
        /** Whether k was named ({@link #rings}, {@link #settings}): a {@link #topology} must then agree. */
        private boolean ringsSet;
        private MultiRingTopology topology;
        private boolean partitioned;

        private Builder(RingConfig ring) {
            ringSettings(ring);
        }

        /**
         * Sets {@code key} (one of {@link MultiRingKeys#VALUES}') to {@code value}.
         *
         * @throws IllegalArgumentException naming the key and the value, if the key's check refuses it
         */
        public <T> Builder set(ConfigKey<T> key, T value) {
            values.set(key, value);
            ringsSet |= key == MultiRingKeys.RINGS;
            return this;
        }

        /**
         * Sets every {@link MultiRingKeys#VALUES} key {@code settings} hold ({@code multiring.rings},
         * {@code multiring.kind}, {@code multiring.m}, {@code ring.lambda}, {@code ring.delta.ms});
         * {@link MultiRingKeys#config} adds the ring template and the topology.
         *
         * @throws IllegalArgumentException naming the settings' source and the first faulty key
         */
        public Builder settings(Settings settings) {
            values.setAll(settings);
            ringsSet |= settings.has(MultiRingKeys.RINGS.name());
            return this;
        }

        /** {@code multiring.rings}: k, 1..{@value #MAX_RINGS}; default {@value #DEFAULT_RINGS}. */
        public Builder rings(int k) { return set(MultiRingKeys.RINGS, k); }

        /**
         * Whether group rings may run on subsets of the replicas (default false): each replica then
         * delivers the groups of the rings it runs, as a partition of a partitioned service does
         * (seed 004 (S-SMR) §IV: partition p's replicas run ring p, every replica the global ring).
         * Without it every ring must run on every replica, since each replica delivers every group.
         */
        public Builder partitioned(boolean partitioned) {
            this.partitioned = partitioned;
            return this;
        }

        /**
         * The rings' kinds and M-Ring datagram addresses and the group → ring mapping
         * ({@link MultiRingTopology#parse}: the {@code multiring.ring.*} / {@code multiring.group.*}
         * keys); its ring count is k (a {@link #rings} call must agree), its kinds and addresses
         * replace {@link #kind} and the template's datagram group / port. Every ring must run on
         * every replica unless {@link #partitioned}. Default: k rings of {@link #kind}, ring i on the template's datagram
         * group, port + i (the global ring + k), group g → ring g.
         */
        public Builder topology(MultiRingTopology topology) {
            this.topology = Objects.requireNonNull(topology, "topology");
            return this;
        }

        /** {@code multiring.kind}: every ring's variant; default M-Ring. */
        public Builder kind(Ring.Kind kind) {
            return set(MultiRingKeys.KIND, MultiRingKeys.name(Objects.requireNonNull(kind, "kind")));
        }

        /**
         * Every ring's other settings (timeouts, window, batching, the M-Ring datagram group) from
         * {@code template}; also takes its kind (a later {@link #kind} replaces it). Its λ and Δ are
         * not used ({@link #lambda}, {@link #skipInterval}).
         */
        public Builder ringSettings(RingConfig template) {
            this.ring = Objects.requireNonNull(template, "template");
            return kind(template.kind());
        }

        /** {@code multiring.m}: M &gt; 0; default {@value #DEFAULT_ROUND_LENGTH}. */
        public Builder roundLength(int m) { return set(MultiRingKeys.M, m); }

        /**
         * {@code ring.lambda}: λ &gt; 0 instances per second, at most {@value RingConfig#MAX_LAMBDA};
         * default {@value #DEFAULT_LAMBDA}.
         */
        public Builder lambda(long instancesPerSecond) { return set(MultiRingKeys.LAMBDA, instancesPerSecond); }

        /** {@code ring.delta.ms}: Δ, positive, at most 60 s; default 5 ms. */
        public Builder skipInterval(Duration delta) { return set(RingKeys.DELTA, Objects.requireNonNull(delta, "delta")); }

        /**
         * The configuration: the template with this builder's kind, λ and Δ, and the topology (the
         * default one for k rings unless {@link #topology} gave one, whose ring count k then is).
         *
         * @throws IllegalArgumentException if an M-Ring port + k exceeds 65535, joiners are named
         *                                  without {@code ring.member.ids} (or at or above it, or
         *                                  without partitions), or the topology
         *                                  disagrees (its process or ring count, or a ring that leaves
         *                                  a replica out)
         */
        public MultiRingConfig build() {
            ConfigValues v = values.build();
            Ring.Kind kind = MultiRingKeys.kind(v.get(MultiRingKeys.KIND));
            int rings = v.get(MultiRingKeys.RINGS);
            RingConfig template = ring.toBuilder(kind).lambda(v.get(MultiRingKeys.LAMBDA)).skipInterval(v.get(RingKeys.DELTA))
                    .build();
            MultiRingTopology t = topology;
            if (t == null) {
                int streams = rings > 1 ? rings + 1 : 1;
                boolean fits = template.mringPort() + streams - 1 <= 65_535;
                if (kind == Ring.Kind.M_RING && !fits) {
                    throw new IllegalArgumentException("mring.port " + template.mringPort() + " + " + (streams - 1)
                            + " rings exceeds 65535");
                }
                // U-Ring rings use no datagram port; an unused port range that does not fit starts at the default.
                t = MultiRingTopology.builder(template.members()).rings(rings).kind(kind)
                        .datagram(template.mringGroup(), fits ? template.mringPort() : MultiRingTopology.DEFAULT_DATAGRAM_PORT)
                        .build();
            } else {
                check(t, template.members(), rings);
                // k is the topology's: a k not named takes it.
                v = v.toBuilder().set(MultiRingKeys.RINGS, t.rings()).build();
            }
            return new MultiRingConfig(v, template, joined(t, template));
        }

        /**
         * The topology with the replicas that may join each ring: with {@code ring.member.ids}, every
         * id from the file's members up to it for every ring (every replica runs every ring), or a
         * partitioned deployment's declared {@code multiring.ring.<p>.joiners}, each below it.
         */
        private MultiRingTopology joined(MultiRingTopology t, RingConfig template) {
            int declared = -1;
            int declaredAt = 0;
            for (int id : t.ringIds()) {
                for (int j : t.joiners(id)) {
                    if (j > declared) {
                        declared = j;
                        declaredAt = id;
                    }
                }
            }
            String key = "multiring.ring." + (declaredAt == MultiRingTopology.GLOBAL ? "global" : declaredAt) + ".joiners";
            if (!template.membershipChanges()) {
                if (declared >= 0) {
                    throw new IllegalArgumentException(key + " names replicas that may join, but the rings keep their members "
                            + "fixed: set ring.member.ids above the highest of them");
                }
                return t;
            }
            int ids = template.idSpace();
            if (!partitioned) {
                if (declared >= 0) {
                    throw new IllegalArgumentException(key + ": without partitions every replica runs every ring, and any id "
                            + "from " + t.processes() + " to ring.member.ids - 1 (" + (ids - 1) + ") may join; name no joiners");
                }
                return t.withJoiners(java.util.stream.IntStream.range(t.processes(), ids).toArray());
            }
            if (declared >= ids) {
                throw new IllegalArgumentException(key + ": replica " + declared + " is outside the rings' ids 0.." + (ids - 1)
                        + " (ring.member.ids=" + ids + ")");
            }
            return t;
        }

        private void check(MultiRingTopology t, int members, int rings) {
            if (t.processes() != members) {
                throw new IllegalArgumentException("the multiring topology has " + t.processes() + " processes, the cluster "
                        + members + " members");
            }
            if (ringsSet && t.rings() != rings) {
                throw new IllegalArgumentException("multiring.rings=" + rings + " but the topology has " + t.rings()
                        + " rings");
            }
            if (partitioned) {
                for (int p = 0; p < members; p++) {
                    if (t.rings() > 1 && !t.runs(p, MultiRingTopology.GLOBAL)) {
                        throw new IllegalArgumentException("multiring.ring.global.members=" + join(t.members(MultiRingTopology.GLOBAL))
                                + " leaves out replica " + p + ": every replica runs the global ring (it orders the commands "
                                + "to several partitions)");
                    }
                    int groupRings = 0;
                    for (int r = 0; r < t.rings(); r++) {
                        groupRings += t.runs(p, r) ? 1 : 0;
                    }
                    if (groupRings == 0) {
                        throw new IllegalArgumentException("replica " + p + " is in no group ring (multiring.ring.<i>.members)");
                    }
                }
                return;
            }
            for (int id : t.ringIds()) {
                int[] m = t.members(id);
                if (m.length != members) {
                    int missing = 0;
                    while (missing < m.length && m[missing] == missing) {
                        missing++;
                    }
                    String name = id == MultiRingTopology.GLOBAL ? "global" : Integer.toString(id);
                    throw new IllegalArgumentException("multiring.ring." + name + ".members=" + join(m) + " leaves out "
                            + "replica " + missing + ": the multi-ring ordering subscribes every replica to every group, so "
                            + "every ring must run on every replica (0.." + (members - 1) + "); rings over a subset of the "
                            + "processes are for partitioned services (execution=s-smr) and RingMulticast used directly");
                }
            }
        }

        private static String join(int[] m) {
            StringBuilder sb = new StringBuilder();
            for (int p : m) {
                sb.append(sb.length() == 0 ? "" : ",").append(p);
            }
            return sb.toString();
        }
    }
}
