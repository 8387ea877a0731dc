package dev.parallax.examples.cli;

import dev.parallax.core.config.ConfigKey;
import dev.parallax.paxos.PaxosKeys;
import dev.parallax.paxos.multicast.MulticastOrdering;
import dev.parallax.ringpaxos.RingKeys;

import java.time.Duration;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The ordering protocols the examples' commands know by name ({@code ordering=} and
 * {@code --ordering}): the ones registered by smr-paxos and smr-ringpaxos
 * ({@link dev.parallax.core.runtime.OrderingRegistry}; a test checks the two lists agree), as
 * constants the demo, chaos and bench commands can switch on. The protocols themselves, their keys
 * and their factories live in their modules ({@code OrderingProvider}). Default {@link #MULTI_PAXOS}.
 *
 * <p>Immutable and thread-safe.
 */
public enum Orderings {
    /** Multi-Paxos with a stable leader (seed 000 (JPaxos staged replica)), configured by {@code paxos.*}. */
    MULTI_PAXOS("multi-paxos"),
    /**
     * S-Paxos (seed 002 (S-Paxos)): every replica takes clients and disseminates their batches, the
     * Multi-Paxos leader orders batch ids; configured by {@code spaxos.*} and, for its ordering
     * layer, {@code paxos.*}. Log {@code spaxos}; clients are never redirected.
     */
    S_PAXOS("s-paxos"),
    /**
     * U-Ring Paxos (seed 003 (Ring Paxos) §3.3.3, Alg. 3): consensus along a TCP ring of f+1
     * acceptors, every replica a proposer and learner; configured by {@code ring.*}. Log
     * {@code uring}; clients are never redirected.
     */
    U_RING("u-ring"),
    /**
     * M-Ring Paxos (seed 003 (Ring Paxos) §3.3.2, Alg. 2): Phase 2A and decisions by IP multicast
     * to every replica, Phase 2B along a ring of f+1 acceptors; configured by {@code ring.*} and
     * {@code mring.*} (group, port, interface). Log {@code mring}; clients are never redirected.
     */
    M_RING("m-ring"),
    /**
     * Multi-Ring Paxos (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1): k rings
     * ({@code multiring.rings}, groups 0..k-1) and a global ring for commands to several groups,
     * every replica a member of every ring and merging them all, M values per ring in turn
     * ({@code multiring.m}); each ring a U-Ring or M-Ring ({@code multiring.kind}) configured by
     * {@code ring.*} / {@code mring.*}, skipping at {@code ring.lambda} per second. Clients address
     * commands by group ({@link KvRouting} for the KV store); clients are never redirected.
     */
    MULTI_RING("multi-ring"),
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
    MULTICAST(MulticastOrdering.NAME);

    /** The key that selects the ordering protocol in a cluster file. */
    public static final String KEY = "ordering";
    /** The protocol of a cluster file that names none. */
    public static final Orderings DEFAULT = MULTI_PAXOS;

    private final String configName;
    Orderings(String configName) {
        this.configName = configName;
    }

    /** The name in cluster files and on the command line, e.g. {@code multi-paxos}. */
    public String configName() {
        return configName;
    }

    /**
     * Whether leadership can be handed to a chosen replica ({@code transfer-leader}): Multi-Paxos,
     * S-Paxos and the Ring Paxos orderings (a ring's coordination; Multi-Ring per ring); the other
     * orderings have no membership admin.
     */
    public boolean transfersLeadership() {
        return this == MULTI_PAXOS || this == S_PAXOS || ringMembers();
    }

    /**
     * Whether the ordering is made of Ring Paxos rings, which change their members at run time only
     * over the ids {@code ring.member.ids} declares: U-Ring, M-Ring and Multi-Ring.
     */
    public boolean ringMembers() {
        return this == U_RING || this == M_RING || this == MULTI_RING;
    }

    /**
     * The key of the silence after which the ordering suspects its leader: {@code ring.suspect.ms}
     * for the Ring Paxos orderings, {@code paxos.suspect.ms} for the others (Multi-Paxos and the
     * orderings built on it).
     */
    public ConfigKey<Duration> suspectKey() {
        return ringMembers() ? RingKeys.SUSPECT : PaxosKeys.SUSPECT;
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
