package dev.parallax.paxos.spaxos;

import dev.parallax.core.config.ConfigKey;
import dev.parallax.core.config.KeyTable;
import dev.parallax.core.config.Settings;
import dev.parallax.paxos.PaxosKeys;

import java.time.Duration;

/**
 * The S-Paxos keys of a cluster file ({@code spaxos.*}, seed 002 (S-Paxos) §IV-C;
 * docs/protocols/s-paxos.md "Configuration"), each declared once; {@link SPaxosConfig} holds their
 * values and {@link #config} reads them, with {@link PaxosKeys} for the ordering layer.
 *
 * <p>Constants only; thread-safe.
 */
public final class SPaxosKeys {

    /** cbsz. */
    public static final ConfigKey<Integer> BATCH_BYTES = ConfigKey.integer("spaxos.batch.bytes", SPaxosConfig.DEFAULT_BATCH_BYTES, 1,
            Integer.MAX_VALUE, "cbsz: a client batch closes once it holds this many bytes (1300: under one Ethernet frame).");
    public static final ConfigKey<Duration> BATCH_TIMEOUT = ConfigKey.millis("spaxos.batch.timeout.ms", 1, 0, Long.MAX_VALUE,
            "Longest a request waits for its client batch to fill.");
    public static final ConfigKey<Integer> EAGER_BELOW = ConfigKey.integer("spaxos.eager.below", SPaxosConfig.DEFAULT_EAGER_BELOW, 1,
            Integer.MAX_VALUE, "A partial client batch is disseminated at once only while fewer own batches are unstable.");
    public static final ConfigKey<Integer> IDS_PER_VALUE = ConfigKey.integer("spaxos.ids.per.value", SPaxosConfig.DEFAULT_IDS_PER_VALUE,
            1, IdList.MAX_IDS, "Most batch ids in one ordered value (natural batching instead of the paper's fixed bsz).");
    public static final ConfigKey<Duration> ACK_INTERVAL = ConfigKey.millis("spaxos.ack.interval.ms", 1, 1, Long.MAX_VALUE,
            "η: shortest quiet time towards a peer before an explicit ack goes to it; at most spaxos.ack.refresh.ms.");
    public static final ConfigKey<Duration> ACK_REFRESH = ConfigKey.millis("spaxos.ack.refresh.ms", 100, 1, Long.MAX_VALUE,
            "How often an idle replica re-sends its ack vector to every peer (lost-ack repair, Alg. 1 l.23-25).");
    public static final ConfigKey<Duration> RESEND_DELAY = ConfigKey.millis("spaxos.resend.delay.ms", 50, 1, Long.MAX_VALUE,
            "Δ: how long an acked-but-missing body waits before RESENDFORWARD, and between retries (Alg. 1 l.26-29).");
    public static final ConfigKey<Integer> MAX_UNDECIDED = ConfigKey.integer("spaxos.max.undecided", SPaxosConfig.DEFAULT_MAX_UNDECIDED,
            1, SPaxosConfig.MAX_UNDECIDED_LIMIT, "B: most own undecided batches an origin numbers ahead of its lowest undecided one "
                    + "(at most the executed-id window).");
    public static final ConfigKey<Integer> RESEND_MAX_BYTES = ConfigKey.integer("spaxos.resend.max.bytes",
            SPaxosConfig.DEFAULT_RESEND_MAX_BYTES, 1, Integer.MAX_VALUE,
            "Most body bytes one RESENDFORWARD answer carries (the first body always goes).");

    /** The S-Paxos table. */
    public static final KeyTable TABLE = KeyTable.of("S-Paxos", BATCH_BYTES, BATCH_TIMEOUT, EAGER_BELOW, IDS_PER_VALUE,
            ACK_INTERVAL, ACK_REFRESH, RESEND_DELAY, MAX_UNDECIDED, RESEND_MAX_BYTES);

    private SPaxosKeys() {
    }

    /**
     * The S-Paxos settings of a cluster file, with {@link PaxosKeys#config} for its ordering layer.
     *
     * @throws IllegalArgumentException naming the file and the faulty key
     */
    public static SPaxosConfig config(Settings s, int members) {
        SPaxosConfig.Builder b = SPaxosConfig.builder(members).paxos(PaxosKeys.config(s, members));
        b.values().setAll(s);
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw s.error(e.getMessage());
        }
    }
}
