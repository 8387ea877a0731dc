package dev.parallax.ringpaxos;

import dev.parallax.core.config.ConfigKey;
import dev.parallax.core.config.KeyTable;
import dev.parallax.core.config.ReplicaKeys;
import dev.parallax.core.config.Settings;
import dev.parallax.core.runtime.DatagramFaults;

import java.time.Duration;

/**
 * The Ring Paxos cluster-file keys, one {@link ConfigKey} per parameter of {@link RingConfig}
 * (seed 003 (Ring Paxos) ch. 3: U-Ring, §3.3.3, Alg. 3, and M-Ring, §3.3.2, Alg. 2), and the
 * reader that turns a cluster file into a {@link RingConfig} ({@link #config}). {@code ring.*}
 * keys apply to both variants, {@code mring.*} keys to M-Ring only (IP multicast). The paper gives
 * no time-outs and no flow-control constants: ours are chosen for a LAN or loopback
 * (docs/protocols/ring-paxos.md, "Configuration").
 *
 * <p>Each key's default, range and message are {@link RingConfig.Builder}'s: the builder sets
 * these keys, so a value reads the same whether it comes from a file or from code.
 *
 * <p>Stateless and thread-safe.
 */
public final class RingKeys {

    /** {@code ring.window}. */
    public static final ConfigKey<Integer> WINDOW = ConfigKey.integer("ring.window", 32, 1, Integer.MAX_VALUE,
            "Instances the coordinator keeps open at once (seed 003 (Ring Paxos) §3.3.6 (b)); M-Ring's AIMD maximum.");
    /** {@code ring.batch.bytes}. */
    public static final ConfigKey<Integer> BATCH_BYTES = ConfigKey.integer("ring.batch.bytes", 8000, 1, Integer.MAX_VALUE,
            "BSZ: a client batch closes at this many bytes, one M-Ring datagram (seed 003 (Ring Paxos) §3.5.2).");
    /** {@code ring.batch.timeout.ms}. */
    public static final ConfigKey<Duration> BATCH_TIMEOUT = ConfigKey.millis("ring.batch.timeout.ms", 1, 0, Long.MAX_VALUE,
            "A partial batch closes after this long.");
    /** {@code ring.eager.below}. */
    public static final ConfigKey<Integer> EAGER_BELOW = ConfigKey.integer("ring.eager.below", 2, 1, Integer.MAX_VALUE,
            "Propose a partial batch at once while fewer than this many instances are open (coordinator) or own "
                    + "proposals pending (others); capped at ring.window.");
    /** {@code ring.packet.bytes}. */
    public static final ConfigKey<Integer> PACKET_BYTES = ConfigKey.integer("ring.packet.bytes", 32768,
            RingConfig.MIN_PACKET_BYTES, Integer.MAX_VALUE,
            "Largest ring (TCP) packet, at least 512 bytes; a bigger single entry goes alone.");
    /** {@code ring.heartbeat.ms}. */
    public static final ConfigKey<Duration> HEARTBEAT = ConfigKey.millis("ring.heartbeat.ms", 50, 1, Long.MAX_VALUE,
            "Period of the coordinator's heartbeats and the members' Alive reports (seed 003 (Ring Paxos) §3.3.7); "
                    + "below ring.suspect.ms.");
    /** {@code ring.suspect.ms}. */
    public static final ConfigKey<Duration> SUSPECT = ConfigKey.millis("ring.suspect.ms", 500, 1, Long.MAX_VALUE,
            "Silence after which a watched member or the coordinator is suspected; above ring.heartbeat.ms.");
    /** {@code ring.retransmit.ms}. */
    public static final ConfigKey<Duration> RETRANSMIT = ConfigKey.millis("ring.retransmit.ms", 100, 1, Long.MAX_VALUE,
            "Re-send an unanswered Phase 1 message or U-Ring ring packet after this long; below ring.stall.ms.");
    /** {@code ring.catchup.ms}. */
    public static final ConfigKey<Duration> CATCH_UP = ConfigKey.millis("ring.catchup.ms", 100, 1, Long.MAX_VALUE,
            "Period of catch-up queries while decided values are missing.");
    /** {@code ring.catchup.max.instances}. */
    public static final ConfigKey<Integer> CATCH_UP_MAX_INSTANCES = ConfigKey.integer("ring.catchup.max.instances", 256, 1,
            Integer.MAX_VALUE, "Instances per catch-up reply and per Phase 1B page.");
    /** {@code ring.catchup.max.bytes}. */
    public static final ConfigKey<Integer> CATCH_UP_MAX_BYTES = ConfigKey.integer("ring.catchup.max.bytes", 1 << 20, 1,
            Integer.MAX_VALUE, "Value bytes per catch-up reply and per Phase 1B page (the first always goes); in a "
                    + "cluster file at most half the frame limit.");
    /** {@code ring.stall.ms}. */
    public static final ConfigKey<Duration> STALL = ConfigKey.millis("ring.stall.ms", 1000, 1, Long.MAX_VALUE,
            "An instance open this long re-forms the ring without its first lagging member (one-way cuts).");
    /** {@code ring.rejoin.backoff.ms}. */
    public static final ConfigKey<Duration> REJOIN_BACKOFF = ConfigKey.millis("ring.rejoin.backoff.ms", 1000, 0, Long.MAX_VALUE,
            "An excluded member waits this long before it asks to rejoin (doubling per exclusion, at most 30 s).");
    /** {@code ring.rejoin.lag}. */
    public static final ConfigKey<Integer> REJOIN_LAG = ConfigKey.integer("ring.rejoin.lag", 64, 0, Integer.MAX_VALUE,
            "An off-ring member rejoins only within this many instances of the decided prefix.");
    /** {@code ring.max.backlog}. */
    public static final ConfigKey<Integer> MAX_BACKLOG = ConfigKey.integer("ring.max.backlog", 1024, 1, Integer.MAX_VALUE,
            "Open instances stay below the slowest ring member's delivered version plus this (U-Ring flow control, "
                    + "seed 003 (Ring Paxos) §3.3.6 (b)); below 4096, the runtime's maxUndelivered.");
    /** {@code ring.member.ids}. */
    public static final ConfigKey<Integer> MEMBER_IDS = ConfigKey.integer("ring.member.ids", 0, 0, RingConfig.MAX_MEMBERS,
            "Member ids in use over the cluster's life, 0 for the cluster file's n: above n, membership changes may add "
                    + "members with ids up to this minus one (rounds rotate over this many ids; retired ids never return).");
    /** {@code ring.max.pending}. */
    public static final ConfigKey<Integer> MAX_PENDING = ConfigKey.integer("ring.max.pending", 64, 1, Integer.MAX_VALUE,
            "Own undecided proposals per member; the coordinator's queue holds at most n times this.");
    /** {@code ring.proposal.retry.ms}. */
    public static final ConfigKey<Duration> PROPOSAL_RETRY = ConfigKey.millis("ring.proposal.retry.ms", 1000, 1, Long.MAX_VALUE,
            "Re-send an own proposal not decided after this long.");
    /** {@code ring.restart.hold.ms}. */
    public static final ConfigKey<Duration> RESTART_HOLD = ConfigKey.millis("ring.restart.hold.ms", 2000, 0, Long.MAX_VALUE,
            "A restarted member starts no round before hearing a peer, for at most this long.");
    /** {@code ring.lambda}: 0..{@value RingConfig#MAX_LAMBDA}. */
    public static final ConfigKey<Long> LAMBDA = ConfigKey.longInteger("ring.lambda", 0L, Long.MIN_VALUE, Long.MAX_VALUE,
            "λ, the logical instances per second the coordinator's skips keep the ring at (Multi-Ring Paxos, seed 003 "
                    + "(Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1 l.13-20, §5.4.6); 0: no skips, no cap. Default 0; "
                    + "20000 with ordering=multi-ring, which refuses 0 (an idle ring would stall the merge).")
            .andCheck(v -> {
                if (v < 0 || v > RingConfig.MAX_LAMBDA) {
                    throw new IllegalArgumentException("ring.lambda must be 0 (off) .. " + RingConfig.MAX_LAMBDA
                            + " instances per second, got " + v);
                }
                return v;
            });
    /** {@code ring.skip.demand}. */
    public static final ConfigKey<String> SKIP_DEMAND = ConfigKey.choice("ring.skip.demand", "off",
            "With ring.lambda > 0 (Multi-Ring), opt-in: on, an idle ring's coordinator skips at once when another ring of its "
                    + "process opened a client value past it, so that the merge does not wait for the next paced skip (up to "
                    + "ring.delta.ms); off: paced skips only (the paper's Algorithm 1).",
            "on", "off");
    /** {@code ring.delta.ms}: at most {@link RingConfig#MAX_SKIP_INTERVAL}. */
    public static final ConfigKey<Duration> DELTA = ConfigKey.millis("ring.delta.ms", 5, 1, Long.MAX_VALUE,
            "Δ, how often the coordinator checks whether a skip is due (with ring.lambda > 0); at most 60000 ms.")
            .andCheck(d -> {
                if (d.compareTo(RingConfig.MAX_SKIP_INTERVAL) > 0) {
                    throw new IllegalArgumentException("ring.delta.ms must be <= " + RingConfig.MAX_SKIP_INTERVAL.toMillis()
                            + " ms, got " + d.toMillis() + " ms");
                }
                return d;
            });
    /** {@code mring.group}. */
    public static final ConfigKey<String> MRING_GROUP = ConfigKey.text("mring.group", "239.255.80.1", false,
            "The IPv4 multicast group of M-Ring's Phase 2A and decisions (administratively scoped).");
    /** {@code mring.port}. */
    public static final ConfigKey<Integer> MRING_PORT = ConfigKey.integer("mring.port", 7400, 1, 65535,
            "The UDP port of the multicast group (Multi-Ring: ring i uses mring.port + i, the global ring + k).");
    /** {@code mring.interface}. */
    public static final ConfigKey<String> MRING_INTERFACE = ConfigKey.text("mring.interface", "127.0.0.1", false,
            "The address of the interface to multicast on (the NIC's address on a network), or its name (eth0).");
    /** {@code mring.ttl}. */
    public static final ConfigKey<Integer> MRING_TTL = ConfigKey.integer("mring.ttl", 1, 0, 255,
            "Multicast time to live, 0..255 (1: the local network only).");
    /** {@code mring.packet.bytes}: at most 65507, one UDP datagram. */
    public static final ConfigKey<Integer> MRING_PACKET_BYTES = ConfigKey.integer("mring.packet.bytes", 8192,
            RingConfig.MIN_PACKET_BYTES, Integer.MAX_VALUE,
            "Largest datagram, 512..65507; a larger value goes by TCP to the ring acceptors and learners fetch it.")
            .andCheck(n -> {
                if (n > 65507) {
                    throw new IllegalArgumentException("mring.packet.bytes must be <= 65507 (one UDP datagram), got " + n);
                }
                return n;
            });
    /** {@code mring.socket.buffer.bytes}. */
    public static final ConfigKey<Integer> MRING_SOCKET_BUFFER_BYTES = ConfigKey.integer("mring.socket.buffer.bytes", 4 << 20, 1,
            Integer.MAX_VALUE, "UDP receive and send buffers asked for (the kernel caps them at rmem_max / wmem_max).");
    /** {@code mring.window.min}. */
    public static final ConfigKey<Integer> MRING_WINDOW_MIN = ConfigKey.integer("mring.window.min", 1, 1, Integer.MAX_VALUE,
            "Flow control never shrinks the window below this; at most ring.window.");
    /** {@code mring.retransmit.ms}. */
    public static final ConfigKey<Duration> MRING_RETRANSMIT = ConfigKey.millis("mring.retransmit.ms", 20, 1, Long.MAX_VALUE,
            "Re-multicast an undecided Phase 2A after this long (seed 003 (Ring Paxos) §3.3.4); below ring.stall.ms.");
    /** {@code mring.retransmit.max.bytes}. */
    public static final ConfigKey<Integer> MRING_RETRANSMIT_MAX_BYTES = ConfigKey.integer("mring.retransmit.max.bytes", 1 << 20, 1,
            Integer.MAX_VALUE, "Bytes re-sent per retransmission round.");
    /** {@code mring.fc.threshold}. */
    public static final ConfigKey<Integer> MRING_FC_THRESHOLD = ConfigKey.integer("mring.fc.threshold", 256, 1, Integer.MAX_VALUE,
            "A learner this many instances behind the decided prefix reports a backlog, halving the window "
                    + "(seed 003 (Ring Paxos) §3.3.6).");
    /** {@code mring.fc.decrease.ms}. */
    public static final ConfigKey<Duration> MRING_FC_DECREASE = ConfigKey.millis("mring.fc.decrease.ms", 10, 1, Long.MAX_VALUE,
            "The window halves at most once per this period on a backlog report.");
    /** {@code mring.fc.increase.ms}. */
    public static final ConfigKey<Duration> MRING_FC_INCREASE = ConfigKey.millis("mring.fc.increase.ms", 5, 1, Long.MAX_VALUE,
            "The window grows by one per this period without a backlog report.");
    /** {@code mring.learner.buffer}. */
    public static final ConfigKey<Integer> MRING_LEARNER_BUFFER = ConfigKey.integer("mring.learner.buffer", 4096, 1,
            Integer.MAX_VALUE, "Instances a learner buffers bodies for ahead of its decided prefix; beyond, bodies are "
                    + "dropped (counted) and fetched by catch-up.");
    /** {@code mring.learner.buffer.bytes}. */
    public static final ConfigKey<Long> MRING_LEARNER_BUFFER_BYTES = ConfigKey.longInteger("mring.learner.buffer.bytes", 64L << 20,
            1, Long.MAX_VALUE, "The same bound as mring.learner.buffer, in value bytes.");
    /** {@code mring.auth}. */
    public static final ConfigKey<String> MRING_AUTH = ConfigKey.choice("mring.auth", "hmac",
            "How M-Ring datagrams are authenticated: hmac (an HMAC-SHA256 under the cluster secret, cluster.secret, and a "
                    + "per-sender counter against replays; a replica without the secret refuses to start) or none "
                    + "(isolated test networks only: anyone who can send to the group can forge decisions).",
            "hmac", "none");
    /** {@code mring.speculation}. */
    public static final ConfigKey<String> MRING_SPECULATION = ConfigKey.choice("mring.speculation", "off",
            "Speculative execution (seed 003 §4.2.1): on, a replica whose state machine opts in (SpeculativeStateMachine, "
                    + "sequential executor) executes a command when the coordinator's Phase 2A fixes its position, answers "
                    + "only once it is decided, and undoes what ran past the first undecided instance when the coordinator "
                    + "changes; off: execution of decided commands only. Single-ring M-Ring only (ignored with ring.lambda > 0).",
            "on", "off");
    /** {@code mring.test.faults}. */
    public static final ConfigKey<String> MRING_TEST_FAULTS = ConfigKey.text("mring.test.faults", "", true,
            "Tests and chaos only: datagram faults at the receiver, e.g. drop=0.02,dup=0.01,reorder=4,seed=7; empty: none.");

    /** Every Ring Paxos key, in the order of docs/protocols/ring-paxos.md. */
    public static final KeyTable TABLE = KeyTable.of("Ring Paxos", WINDOW, BATCH_BYTES, BATCH_TIMEOUT, EAGER_BELOW, PACKET_BYTES,
            HEARTBEAT, SUSPECT, RETRANSMIT, CATCH_UP, CATCH_UP_MAX_INSTANCES, CATCH_UP_MAX_BYTES, STALL, REJOIN_BACKOFF,
            REJOIN_LAG, MAX_BACKLOG, MEMBER_IDS, MAX_PENDING, PROPOSAL_RETRY, RESTART_HOLD, LAMBDA, DELTA, SKIP_DEMAND, MRING_GROUP, MRING_PORT,
            MRING_INTERFACE, MRING_TTL, MRING_PACKET_BYTES, MRING_SOCKET_BUFFER_BYTES, MRING_WINDOW_MIN, MRING_RETRANSMIT,
            MRING_RETRANSMIT_MAX_BYTES, MRING_FC_THRESHOLD, MRING_FC_DECREASE, MRING_FC_INCREASE, MRING_LEARNER_BUFFER,
            MRING_LEARNER_BUFFER_BYTES, MRING_AUTH, MRING_SPECULATION, MRING_TEST_FAULTS);

    private RingKeys() {
    }

    /**
     * The Ring Paxos settings of a cluster file for variant {@code kind}, defaults for absent keys.
     * Besides each key's own check: {@code ring.catchup.max.bytes} at most half the
     * file's {@code max.frame.bytes} ({@link ReplicaKeys#requireFitsFrame}: a catch-up reply fits a frame),
     * {@code mring.test.faults} a valid fault spec, the builder's checks across keys (naming both),
     * and for M-Ring a valid datagram group ({@link RingPaxos#datagramGroup}).
     *
     * @param members n, the replicas (1..31)
     * @throws IllegalArgumentException naming the file and the faulty key
     */
    public static RingConfig config(Settings s, int members, Ring.Kind kind) {
        RingConfig.Builder b;
        try {
            b = RingConfig.builder(members, kind);
        } catch (IllegalArgumentException e) {
            throw s.error("members: " + e.getMessage());
        }
        ReplicaKeys.requireFitsFrame(s, CATCH_UP_MAX_BYTES);
        String faults = s.get(MRING_TEST_FAULTS);
        if (!faults.isBlank()) {
            try {
                DatagramFaults.parse(faults);
            } catch (IllegalArgumentException e) {
                throw s.error(MRING_TEST_FAULTS.name() + ": " + e.getMessage());
            }
        }
        b.settings(s);
        RingConfig config;
        try {
            // The checks across keys name both keys.
            config = b.build();
        } catch (IllegalArgumentException e) {
            throw s.error(e.getMessage());
        }
        if (kind == Ring.Kind.M_RING) {
            try {
                RingPaxos.datagramGroup(config);
            } catch (IllegalArgumentException e) {
                throw s.error("mring.*: " + e.getMessage());
            }
        }
        return config;
    }
}
