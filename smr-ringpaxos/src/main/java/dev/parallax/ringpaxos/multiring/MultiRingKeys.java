package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.config.ConfigKey;
import dev.parallax.core.config.KeyTable;
import dev.parallax.core.config.Settings;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.RingKeys;
import dev.parallax.ringpaxos.RingPaxos;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The Multi-Ring Paxos cluster-file keys (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5 §5.2,
 * Alg. 1): {@code multiring.rings}, {@code multiring.kind}, {@code multiring.m} and the topology
 * families {@code multiring.ring.<i|global>.members|joiners|kind|group} and {@code multiring.group.<g>}
 * ({@link MultiRingTopology#parse(Map, int)}), with the reader that turns a cluster file into a
 * {@link MultiRingConfig} ({@link #config}). Every ring also reads the {@link RingKeys}
 * ({@code ring.*}, {@code mring.*}); {@code ring.lambda} defaults to
 * {@value MultiRingConfig#DEFAULT_LAMBDA} here and must be positive (an idle ring would stall the
 * merge: {@link #LAMBDA}). {@link #VALUES} gathers the keys a {@link MultiRingConfig} holds.
 * docs/protocols/multi-ring-paxos.md documents them.
 *
 * <p>Partitioned services (S-SMR, seed 004 (S-SMR) §IV, §VI) run a ring per partition over that
 * partition's replicas and the global ring over all: {@link #partitions}, {@link #partitionOf} and
 * {@link #partitionMembers} answer the layout such a deployment reads.
 *
 * <p>Stateless and thread-safe.
 */
public final class MultiRingKeys {

    /** {@code multiring.rings}: k, 1..{@value MultiRingConfig#MAX_RINGS}. */
    public static final ConfigKey<Integer> RINGS = ConfigKey.integer("multiring.rings", MultiRingConfig.DEFAULT_RINGS, 1,
            MultiRingConfig.MAX_RINGS, "k: rings 0..k-1 order groups 0..k-1 (1..64), plus the global ring, for commands "
                    + "to several groups, when k > 1; with a partitioned executor (execution=s-smr) the partitions.");
    /** {@code multiring.kind}: {@code m-ring} or {@code u-ring}. */
    public static final ConfigKey<String> KIND = ConfigKey.choice("multiring.kind", RingPaxos.M_RING,
            "Every ring's variant unless set per ring: m-ring or u-ring (each ring reads ring.* and mring.*).",
            RingPaxos.M_RING, RingPaxos.U_RING);
    /** {@code multiring.m}: M &gt; 0. */
    public static final ConfigKey<Integer> M = ConfigKey.integer("multiring.m", MultiRingConfig.DEFAULT_ROUND_LENGTH, 1,
            Integer.MAX_VALUE, "M: logical indices merged from one ring before the next (seed 003 (Ring Paxos / "
                    + "Multi-Ring / P-SMR) §5.2, Alg. 1).");

    /**
     * {@code ring.lambda} as Multi-Ring Paxos reads it: default {@value MultiRingConfig#DEFAULT_LAMBDA}
     * and positive, since an idle ring would stall the merge (seed 003 (Ring Paxos / Multi-Ring /
     * P-SMR) ch. 5 §5.2, Alg. 1 l.13-20), besides {@link RingKeys#LAMBDA}'s own range. The key is
     * Ring Paxos's ({@link RingKeys#TABLE} documents and registers it); this one is not registered.
     */
    public static final ConfigKey<Long> LAMBDA = ConfigKey.longInteger(RingKeys.LAMBDA.name(), MultiRingConfig.DEFAULT_LAMBDA,
            Long.MIN_VALUE, Long.MAX_VALUE, "λ, the logical instances per second every ring's coordinator keeps its ring at "
                    + "(seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1 l.13-20); > 0, an idle ring would stall the "
                    + "merge.")
            .andCheck(v -> {
                if (v <= 0) {
                    throw new IllegalArgumentException("ring.lambda must be > 0 for multi-ring (an idle ring would stall "
                            + "the merge), got " + v);
                }
                return RingKeys.LAMBDA.check(v);
            });

    /** The topology keys, {@code multiring.ring.<i|global>.members|joiners|kind|group} and {@code multiring.group.<g>}. */
    public static final Pattern TOPOLOGY_KEY =
            Pattern.compile("multiring\\.ring\\.(\\d{1,9}|global)\\.(members|joiners|kind|group)|multiring\\.group\\.\\d{1,9}");

    /** The Multi-Ring keys: the fixed ones and the topology families. */
    public static final KeyTable TABLE = KeyTable.builder("Multi-Ring Paxos").keys(RINGS, KIND, M)
            .family("multiring.ring.<i|global>.members", "multiring\\.ring\\.(\\d{1,9}|global)\\.members",
                    "Ring i's (or the global ring's) replicas, a comma list of ids (1..31 of them); default every replica. "
                            + "Without a partitioned executor every ring must run on every replica.")
            .family("multiring.ring.<i>.joiners", "multiring\\.ring\\.(\\d{1,9}|global)\\.joiners",
                    "Under execution=s-smr with ring.member.ids, the replica ids that may join partition i's ring at run "
                            + "time (each from the file's member count up to ring.member.ids - 1, in one partition only; "
                            + "the global ring takes every partition's); default none. Without partitions every id from the "
                            + "file's member count up may join every ring, and the key is refused.")
            .family("multiring.ring.<i|global>.kind", "multiring\\.ring\\.(\\d{1,9}|global)\\.kind",
                    "Ring i's (or the global ring's) variant, m-ring or u-ring; default multiring.kind.")
            .family("multiring.ring.<i|global>.group", "multiring\\.ring\\.(\\d{1,9}|global)\\.group",
                    "Ring i's M-Ring datagram address host:port; default mring.group, port mring.port + i (the global "
                            + "ring mring.port + k).")
            .family("multiring.group.<g>", "multiring\\.group\\.\\d{1,9}",
                    "The ring that orders group g; default group g by ring g, g < k.")
            .build();

    /**
     * The keys a {@link MultiRingConfig} holds ({@link dev.parallax.core.config.ConfigValues} over
     * this table): {@link #RINGS}, {@link #KIND}, {@link #M}, and the ring keys Multi-Ring sets for
     * every ring, {@link #LAMBDA} (Multi-Ring's default and check) and {@link RingKeys#DELTA}. Not
     * registered with the cluster-file reader: {@link #TABLE} and {@link RingKeys#TABLE} are.
     */
    public static final KeyTable VALUES = KeyTable.of("Multi-Ring Paxos", RINGS, KIND, M, LAMBDA, RingKeys.DELTA);

    private MultiRingKeys() {
    }

    /**
     * {@code multiring.kind}: {@link Ring.Kind#M_RING} (the default) or {@link Ring.Kind#U_RING}.
     *
     * @throws IllegalArgumentException naming the file, the key and the accepted values
     */
    public static Ring.Kind kind(Settings s) {
        return kind(s.get(KIND));
    }

    /** The variant a {@link #KIND} value names. */
    static Ring.Kind kind(String value) {
        return value.equals(RingPaxos.U_RING) ? Ring.Kind.U_RING : Ring.Kind.M_RING;
    }

    /** The {@link #KIND} value naming {@code kind}. */
    static String name(Ring.Kind kind) {
        return kind == Ring.Kind.U_RING ? RingPaxos.U_RING : RingPaxos.M_RING;
    }

    /**
     * The Multi-Ring Paxos settings of a cluster file: k = {@code multiring.rings} group rings and,
     * with k &gt; 1, the global ring, every one a {@code multiring.kind} ring configured by the
     * {@code ring.*} / {@code mring.*} keys ({@link RingKeys#config}), merged {@code multiring.m}
     * values at a time, skipping at {@code ring.lambda} per second (default
     * {@value MultiRingConfig#DEFAULT_LAMBDA}) every {@code ring.delta.ms}. With M-Ring rings ring i's
     * datagrams use {@code mring.port + i} and the global ring's {@code mring.port + k}, so that port
     * must exist. The topology keys lay out the rings; with {@code partitioned} (S-SMR, seed 004
     * (S-SMR) §VI) partition p's ring defaults to the p-th block of {@code members / k} consecutive
     * ids, and the global ring runs on every replica.
     *
     * @param members     n, the replicas
     * @param partitioned whether the executor partitions the state, so that group rings may run on
     *                    subsets of the replicas
     * @throws IllegalArgumentException naming the file and the faulty key
     */
    public static MultiRingConfig config(Settings s, int members, boolean partitioned) {
        RingConfig template = RingKeys.config(s, members, kind(s));
        MultiRingConfig.Builder b = MultiRingConfig.builder(members).ringSettings(template).partitioned(partitioned).settings(s);
        MultiRingConfig config;
        try {
            config = b.build();
        } catch (IllegalArgumentException e) {
            throw s.error("multiring.rings, mring.port: " + e.getMessage());
        }
        if (!partitioned && s.names().stream().noneMatch(k -> TOPOLOGY_KEY.matcher(k).matches())) {
            return config;
        }
        // The per-ring keys: the topology reads them with multiring.rings, multiring.kind, mring.group and mring.port.
        Map<String, String> keys = new LinkedHashMap<>();
        for (String k : s.names()) {
            keys.put(k, s.raw(k).orElseThrow());
        }
        if (partitioned) {
            partitionRings(s, members, config.rings(), keys);
        }
        try {
            config = b.topology(MultiRingTopology.parse(keys, members)).build();
        } catch (IllegalArgumentException e) {
            throw s.error(e.getMessage());
        }
        for (int i = 0; i < config.streams(); i++) {
            if (config.kind(i) == Ring.Kind.M_RING) {
                try {
                    RingPaxos.datagramGroup(config.ring(i));
                } catch (IllegalArgumentException e) {
                    throw s.error("multiring.ring." + (i == config.rings() && config.rings() > 1 ? "global" : i)
                            + ".group: " + e.getMessage());
                }
            }
        }
        return config;
    }

    /**
     * The partitions of a partitioned deployment ({@code multiring.rings}, checked with the whole
     * layout as {@link #config} reads it for a partitioned executor). An executor that does not
     * partition the state has one partition; the caller answers that.
     *
     * @throws IllegalArgumentException naming the file and the faulty key
     */
    public static int partitions(Settings s, int members) {
        return config(s, members, true).rings();
    }

    /**
     * The partition replica {@code id} holds in a partitioned deployment: the one group ring it
     * runs (an executor that does not partition the state holds everything, partition 0; the caller
     * answers that).
     *
     * @throws IllegalArgumentException naming the file and the keys if it runs no group ring or several
     */
    public static int partitionOf(Settings s, int members, int id) {
        return partitionOf(s, config(s, members, true).topology(), id);
    }

    /**
     * The replica ids of each partition of a partitioned deployment ({@link #partitionOf}),
     * partition by partition, each in increasing order.
     *
     * @throws IllegalArgumentException naming the file and the keys, as {@link #partitionOf}
     */
    public static List<int[]> partitionMembers(Settings s, int members) {
        MultiRingTopology t = config(s, members, true).topology();
        List<List<Integer>> of = new ArrayList<>();
        for (int p = 0; p < t.rings(); p++) {
            of.add(new ArrayList<>());
        }
        for (int id = 0; id < members; id++) {
            of.get(partitionOf(s, t, id)).add(id);
        }
        return of.stream().map(l -> l.stream().mapToInt(Integer::intValue).toArray()).toList();
    }

    private static int partitionOf(Settings s, MultiRingTopology t, int id) {
        int found = -1;
        for (int p = 0; p < t.rings(); p++) {
            if (t.runs(id, p)) {
                if (found >= 0) {
                    throw s.error("replica " + id + " is in the rings of partitions " + found + " and " + p + " (multiring.ring."
                            + found + ".members, multiring.ring." + p + ".members): under execution=s-smr each replica holds "
                            + "one partition");
                }
                found = p;
            }
        }
        if (found < 0) {
            throw s.error("replica " + id + " is in no partition's ring (multiring.ring.<p>.members)");
        }
        return found;
    }

    /**
     * S-SMR's default layout (seed 004 (S-SMR) §VI: a ring per partition over its replicas, and a
     * global ring over all): unless the file names a partition ring's members, partition p's ring
     * gets the p-th block of {@code members / partitions} consecutive ids (so the members must split
     * evenly unless every partition's ring is named).
     */
    private static void partitionRings(Settings s, int members, int partitions, Map<String, String> keys) {
        boolean allNamed = true;
        for (int p = 0; p < partitions; p++) {
            allNamed &= keys.containsKey("multiring.ring." + p + ".members");
        }
        if (allNamed) {
            return;
        }
        if (members % partitions != 0) {
            throw s.error("execution=s-smr splits the " + members + " members into multiring.rings=" + partitions
                    + " partitions of equal size: list a multiple of " + partitions
                    + " members, or name each partition's replicas with multiring.ring.<p>.members");
        }
        int size = members / partitions;
        for (int p = 0; p < partitions; p++) {
            StringBuilder ids = new StringBuilder();
            for (int i = p * size; i < (p + 1) * size; i++) {
                ids.append(ids.length() == 0 ? "" : ",").append(i);
            }
            keys.putIfAbsent("multiring.ring." + p + ".members", ids.toString());
        }
    }
}
