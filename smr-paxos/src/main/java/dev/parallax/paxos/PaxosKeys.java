package dev.parallax.paxos;

import dev.parallax.core.config.ConfigKey;
import dev.parallax.core.config.KeyTable;
import dev.parallax.core.config.ReplicaKeys;
import dev.parallax.core.config.Settings;

import java.time.Duration;

/**
 * The Multi-Paxos keys of a cluster file ({@code paxos.*}), each declared once: name, type,
 * default, check and documentation. {@link PaxosConfig} holds their values; {@link #config} reads
 * them from a cluster file. The defaults: WND 10 and BSZ 1300 B are seed 000's (JPaxos staged
 * replica, §VI); the time-outs (not in the paper) are chosen for a LAN or loopback, shorter than
 * JPaxos' public defaults so that fail-over takes well under a second (docs/protocols/multi-paxos.md).
 *
 * <p>Constants only; thread-safe.
 */
public final class PaxosKeys {

    /** WND. */
    public static final ConfigKey<Integer> WINDOW = ConfigKey.integer("paxos.window", PaxosConfig.DEFAULT_WINDOW, 1, Integer.MAX_VALUE,
            "WND: instances in flight at once (seed 000 §VI: 10; 35 was best there).");
    /** BSZ. */
    public static final ConfigKey<Integer> BATCH_BYTES = ConfigKey.integer("paxos.batch.bytes", PaxosConfig.DEFAULT_BATCH_BYTES, 1,
            Integer.MAX_VALUE, "BSZ: a batch closes once it holds this many bytes (seed 000 §VI: 1300, under one Ethernet frame).");
    public static final ConfigKey<Duration> BATCH_TIMEOUT = ConfigKey.millis("paxos.batch.timeout.ms", 1, 0, Long.MAX_VALUE,
            "Longest a request waits for its batch to fill.");
    public static final ConfigKey<Integer> EAGER_BELOW = ConfigKey.integer("paxos.eager.below", null, 1, Integer.MAX_VALUE,
            "Partial batches are proposed at once only while fewer than this many instances are in flight; default WND "
                    + "(seed 000's rule). A small value lets batches grow with the load.");
    public static final ConfigKey<Duration> HEARTBEAT = ConfigKey.millis("paxos.heartbeat.ms", 50, 1, Long.MAX_VALUE,
            "How often an idle leader tells followers it is alive.");
    public static final ConfigKey<Duration> SUSPECT = ConfigKey.millis("paxos.suspect.ms", 500, 1, Long.MAX_VALUE,
            "Silence from the leader after which a follower suspects it; at least twice the heartbeat.");
    public static final ConfigKey<Duration> RETRANSMIT = ConfigKey.millis("paxos.retransmit.ms", 200, 1, Long.MAX_VALUE,
            "How long before an unanswered Prepare or Propose is sent again.");
    public static final ConfigKey<Duration> CATCH_UP = ConfigKey.millis("paxos.catchup.ms", 100, 1, Long.MAX_VALUE,
            "How often a lagging replica asks a peer for decided instances.");
    public static final ConfigKey<Duration> RESTART_HOLD = ConfigKey.millis("paxos.restart.hold.ms", 2000, 0, Long.MAX_VALUE,
            "A replica restarted from a non-empty log starts no view until it has heard from a peer, or for at most this long.");
    public static final ConfigKey<Integer> CATCH_UP_MAX_INSTANCES = ConfigKey.integer("paxos.catchup.max.instances",
            PaxosConfig.DEFAULT_CATCH_UP_MAX_INSTANCES, 1, Integer.MAX_VALUE,
            "Most instances one catch-up reply, or one page of a Phase 1 reply, carries.");
    public static final ConfigKey<Integer> CATCH_UP_MAX_BYTES = ConfigKey.integer("paxos.catchup.max.bytes",
            PaxosConfig.DEFAULT_CATCH_UP_MAX_BYTES, 1, Integer.MAX_VALUE,
            "Most bytes of values one catch-up reply or Phase 1 page carries (the first value always goes); at most "
                    + "half the frame limit.");
    public static final ConfigKey<Duration> READ_LEASE = ConfigKey.millis("paxos.read.lease.ms", 0, 0, Long.MAX_VALUE,
            "Leader leases for queries (0: off, read-index only): the window a voter that confirmed the leader adopts no "
                    + "newer view; the leader answers queries without a round for this less the drift margin. At most "
                    + "the suspect time-out.");
    public static final ConfigKey<Integer> READ_LEASE_DRIFT = ConfigKey.integer("paxos.read.lease.drift.ppm", 10_000, 0,
            500_000, "The bound on how far any replica's clock rate strays from real time, in parts per million "
                    + "(10000: 1%); the lease is the window times (1 - drift) / (1 + drift).");

    /** The Multi-Paxos table. */
    public static final KeyTable TABLE = KeyTable.of("Multi-Paxos", WINDOW, BATCH_BYTES, BATCH_TIMEOUT, EAGER_BELOW, HEARTBEAT,
            SUSPECT, RETRANSMIT, CATCH_UP, RESTART_HOLD, CATCH_UP_MAX_INSTANCES, CATCH_UP_MAX_BYTES, READ_LEASE, READ_LEASE_DRIFT);

    private PaxosKeys() {
    }

    /**
     * The Multi-Paxos settings of a cluster file for {@code members} replicas; defaults for absent keys.
     *
     * @throws IllegalArgumentException naming the file and the faulty key
     */
    public static PaxosConfig config(Settings s, int members) {
        PaxosConfig.Builder b = PaxosConfig.builder(members);
        b.values().setAll(s); // each value's error names the file and the key
        ReplicaKeys.requireFitsFrame(s, CATCH_UP_MAX_BYTES);
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw s.error(e.getMessage());
        }
    }
}
