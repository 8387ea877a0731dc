package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.GroupSet;
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
 * <p>Immutable and thread-safe.
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

    private final int rings;
    private final int roundLength;
    private final long lambda;
    private final Duration skipInterval;
    private final RingConfig ring;
    private final MultiRingTopology topology;

    private MultiRingConfig(Builder b, RingConfig ring, MultiRingTopology topology) {
        this.topology = topology;
        this.rings = topology.rings();
        this.roundLength = b.roundLength;
        this.lambda = b.lambda;
        this.skipInterval = b.skipInterval;
        this.ring = ring;
    }

    /** A builder for {@code members} replicas with every default (M-Ring rings, {@link RingConfig}'s settings). */
    public static Builder builder(int members) {
        return new Builder(RingConfig.builder(members, Ring.Kind.M_RING).build());
    }

    /** k, the number of group rings (groups 0..k-1). */
    public int rings() {
        return rings;
    }

    /** The default variant of the rings ({@code multiring.kind}); per ring see {@link #kind(int)}. */
    public Ring.Kind kind() {
        return ring.kind();
    }

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
        return index == rings && rings > 1 ? MultiRingTopology.GLOBAL : index;
    }

    /** n, the replicas (every one a member of every ring). */
    public int members() {
        return ring.members();
    }

    /** M. */
    public int roundLength() {
        return roundLength;
    }

    /** λ, instances per second. */
    public long lambda() {
        return lambda;
    }

    /** Δ. */
    public Duration skipInterval() {
        return skipInterval;
    }

    /** The streams ordered: k group rings, plus the global ring when k &gt; 1. */
    public int streams() {
        return rings > 1 ? rings + 1 : 1;
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
        return ring.toBuilder(topology.kind(id), topology.members(id).length).lambda(lambda).skipInterval(skipInterval)
                .mringGroup(topology.datagramGroup(id)).mringPort(topology.datagramPort(id)).build();
    }

    /** The template every ring's settings come from (its λ, Δ and port are replaced per ring). */
    public RingConfig template() {
        return ring;
    }

    @Override
    public String toString() {
        return "MultiRingConfig{rings=" + rings + ", kind=" + kind() + ", m=" + roundLength + ", lambda=" + lambda
                + ", delta=" + skipInterval + ", topology=" + topology + ", ring=" + ring + "}";
    }

    /** Mutable builder, not thread-safe; setters check their argument, {@link #build} the combination. */
    public static final class Builder {
        private RingConfig ring;
        private Ring.Kind kind;
        private int rings = MultiRingKeys.RINGS.defaultValue();
        private int roundLength = MultiRingKeys.M.defaultValue();
        private long lambda = DEFAULT_LAMBDA;
        private Duration skipInterval = DEFAULT_SKIP_INTERVAL;
        private boolean ringsSet;
        private MultiRingTopology topology;
        private boolean partitioned;

        private Builder(RingConfig ring) {
            this.ring = ring;
            this.kind = ring.kind();
        }

        /** {@code multiring.rings}: k, 1..{@value #MAX_RINGS}; default {@value #DEFAULT_RINGS}. */
        public Builder rings(int k) {
            if (k < 1 || k > MAX_RINGS) {
                throw new IllegalArgumentException("multiring.rings must be 1.." + MAX_RINGS + ", got " + k);
            }
            this.rings = k;
            this.ringsSet = true;
            return this;
        }

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
            this.kind = Objects.requireNonNull(kind, "kind");
            return this;
        }

        /**
         * Every ring's other settings (timeouts, window, batching, the M-Ring datagram group) from
         * {@code template}; also takes its kind (a later {@link #kind} replaces it). Its λ and Δ are
         * not used ({@link #lambda}, {@link #skipInterval}).
         */
        public Builder ringSettings(RingConfig template) {
            this.ring = Objects.requireNonNull(template, "template");
            this.kind = template.kind();
            return this;
        }

        /** {@code multiring.m}: M &gt; 0; default {@value #DEFAULT_ROUND_LENGTH}. */
        public Builder roundLength(int m) {
            if (m <= 0) {
                throw new IllegalArgumentException("multiring.m must be > 0, got " + m);
            }
            this.roundLength = m;
            return this;
        }

        /** {@code ring.lambda}: λ &gt; 0 instances per second; default {@value #DEFAULT_LAMBDA}. */
        public Builder lambda(long instancesPerSecond) {
            if (instancesPerSecond <= 0) {
                throw new IllegalArgumentException("ring.lambda must be > 0 for multi-ring (an idle ring would stall "
                        + "the merge), got " + instancesPerSecond);
            }
            this.lambda = instancesPerSecond;
            return this;
        }

        /** {@code ring.delta.ms}: Δ; default 5 ms. */
        public Builder skipInterval(Duration delta) {
            this.skipInterval = Objects.requireNonNull(delta, "delta");
            return this;
        }

        /**
         * @throws IllegalArgumentException if λ or Δ are out of {@link RingConfig}'s range, an M-Ring
         *                                  port + k exceeds 65535, or the topology disagrees (its
         *                                  process or ring count, or a ring that leaves a replica out)
         */
        public MultiRingConfig build() {
            RingConfig template = ring.toBuilder(kind).lambda(lambda).skipInterval(skipInterval).build();
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
                check(t, template.members());
            }
            return new MultiRingConfig(this, template, t);
        }

        private void check(MultiRingTopology t, int members) {
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
