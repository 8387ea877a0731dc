package dev.parallax.examples.cli;

import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.paxos.MultiPaxos;
import dev.parallax.paxos.multicast.MulticastOrdering;
import dev.parallax.paxos.spaxos.SPaxos;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingPaxos;
import dev.parallax.ringpaxos.multiring.MultiRing;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The ordering protocols a cluster file can name with {@code ordering=} (and {@code --ordering} on
 * the command line): each name with the factory that builds the protocol from the cluster file's
 * settings. Default {@link #MULTI_PAXOS}.
 *
 * <p>Adding a protocol is adding a constant here, with its cluster-file keys in {@link ClusterFile}
 * (a prefix of its own, as {@code paxos.*} is Multi-Paxos's and {@code spaxos.*} S-Paxos's) and a
 * row in docs/operations.md.
 *
 * <p>Immutable and thread-safe; {@link #create} builds a new, unstarted protocol on each call and
 * does not block.
 */
public enum Orderings {
    /** Multi-Paxos with a stable leader (seed 000 (JPaxos staged replica)), configured by {@code paxos.*}. */
    MULTI_PAXOS("multi-paxos", file -> MultiPaxos.protocol(file.paxos())),
    /**
     * S-Paxos (seed 002 (S-Paxos)): every replica takes clients and disseminates their batches, the
     * Multi-Paxos leader orders batch ids; configured by {@code spaxos.*} and, for its ordering
     * layer, {@code paxos.*}. Log {@code spaxos}; clients are never redirected.
     */
    S_PAXOS("s-paxos", file -> SPaxos.protocol(file.spaxos())),
    /**
     * U-Ring Paxos (seed 003 (Ring Paxos) §3.3.3, Alg. 3): consensus along a TCP ring of f+1
     * acceptors, every replica a proposer and learner; configured by {@code ring.*}. Log
     * {@code uring}; clients are never redirected.
     */
    U_RING("u-ring", file -> RingPaxos.uRing(file.ring(Ring.Kind.U_RING))),
    /**
     * M-Ring Paxos (seed 003 (Ring Paxos) §3.3.2, Alg. 2): Phase 2A and decisions by IP multicast
     * to every replica, Phase 2B along a ring of f+1 acceptors; configured by {@code ring.*} and
     * {@code mring.*} (group, port, interface). Log {@code mring}; clients are never redirected.
     */
    M_RING("m-ring", file -> RingPaxos.mRing(file.ring(Ring.Kind.M_RING))),
    /**
     * Multi-Ring Paxos (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1): k rings
     * ({@code multiring.rings}, groups 0..k-1) and a global ring for commands to several groups,
     * every replica a member of every ring and merging them all, M values per ring in turn
     * ({@code multiring.m}); each ring a U-Ring or M-Ring ({@code multiring.kind}) configured by
     * {@code ring.*} / {@code mring.*}, skipping at {@code ring.lambda} per second. Clients address
     * commands by group ({@link KvRouting} for the KV store); clients are never redirected.
     */
    MULTI_RING("multi-ring", file -> MultiRing.protocol(file.multiRing())),
    /**
     * The reference atomic multicast (smr-paxos {@link MulticastOrdering}, seed 003 (Ring Paxos /
     * Multi-Ring / P-SMR) ch. 5, Alg. 1 with Multi-Paxos in place of the rings): one Multi-Paxos
     * instance per group ({@code multicast.groups}, groups 0..k-1) and, with k &gt; 1, a global one
     * for commands to several groups, merged deterministically at every replica; every stream
     * configured by {@code paxos.*}, each with its own leader, to which a replica forwards the
     * commands it takes. The correctness baseline next to {@link #MULTI_RING}, and like it an
     * ordering with groups: clients address commands by group ({@link KvRouting} for the KV store)
     * and {@code execution=p-smr} runs one worker per group over it. Logs {@code mcast-<i>}.
     */
    MULTICAST(MulticastOrdering.NAME, file -> MulticastOrdering.protocol(file.paxos(), file.multicastGroups()));

    /** The key that selects the ordering protocol in a cluster file. */
    public static final String KEY = "ordering";
    /** The protocol of a cluster file that names none. */
    public static final Orderings DEFAULT = MULTI_PAXOS;

    private final String configName;
    private final Function<ClusterFile, OrderingProtocol> factory;

    Orderings(String configName, Function<ClusterFile, OrderingProtocol> factory) {
        this.configName = configName;
        this.factory = factory;
    }

    /** The name in cluster files and on the command line, e.g. {@code multi-paxos}. */
    public String configName() {
        return configName;
    }

    /** A new, unstarted protocol configured by {@code file}. */
    public OrderingProtocol create(ClusterFile file) {
        return factory.apply(file);
    }

    /** Every accepted name, in declaration order. */
    public static List<String> names() {
        return Arrays.stream(values()).map(Orderings::configName).toList();
    }

    /**
     * The protocol called {@code name} (case and surrounding blanks ignored).
     *
     * @throws IllegalArgumentException naming the key and the accepted values
     */
    public static Orderings parse(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        for (Orderings o : values()) {
            if (o.configName.equals(n)) {
                return o;
            }
        }
        throw new IllegalArgumentException(KEY + " must be one of " + String.join(", ", names()) + "; got '" + name + "'");
    }
}
