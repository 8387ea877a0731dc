package dev.parallax.paxos.spaxos;

import dev.parallax.core.config.ConfigValues;
import dev.parallax.paxos.PaxosConfig;

import java.time.Duration;

/**
 * S-Paxos parameters: the ordering layer's {@link PaxosConfig} and the dissemination layer's own
 * settings (seed 002 (S-Paxos) §IV-C; docs/protocols/s-paxos.md "Configuration"). Immutable and
 * thread-safe; built with {@link #builder(int)}.
 *
 * <p>Defaults and the reason for each: batches of 1300 B closed after 1 ms (cbsz, as Multi-Paxos'
 * BSZ: under one Ethernet frame); partial batches disseminated while fewer than 2 own batches are
 * unstable; at most 64 ids per ordered value (natural batching instead of the paper's fixed bsz);
 * an explicit ack at most every 1 ms per peer and a refresh every 100 ms when idle (paper η);
 * RESENDFORWARD after 50 ms (paper Δ: far above loopback/LAN transit, far below the 500 ms suspect
 * time-out); at most 128 own undecided batches per origin (the span bound B, at most
 * {@value #MAX_UNDECIDED_LIMIT}, which makes the executed-id window exact); 1 MiB of bodies per
 * RESENDFORWARD answer (the first always goes).
 */
public final class SPaxosConfig {
    /** Upper limit of {@link #maxUndecidedPerOrigin()}: the executed-id window. */
    public static final int MAX_UNDECIDED_LIMIT = 1024;
    /** Default {@link #batchBytes()}. */
    public static final int DEFAULT_BATCH_BYTES = 1300;
    /** Default {@link #eagerBelow()}. */
    public static final int DEFAULT_EAGER_BELOW = 2;
    /** Default {@link #idsPerValue()}. */
    public static final int DEFAULT_IDS_PER_VALUE = 64;
    /** Default {@link #maxUndecidedPerOrigin()}. */
    public static final int DEFAULT_MAX_UNDECIDED = 128;
    /** Default {@link #resendMaxBytes()}: 1 MiB. */
    public static final int DEFAULT_RESEND_MAX_BYTES = 1 << 20;

    private final int members;
    private final PaxosConfig paxos;
    private final ConfigValues values;

    private SPaxosConfig(Builder b, PaxosConfig paxos) {
        this.members = b.members;
        this.paxos = paxos;
        this.values = b.values.build();
    }

    /** A builder for a cluster of {@code members} replicas, with every default set. */
    public static Builder builder(int members) {
        return new Builder(members);
    }

    /** Number of replicas, n. */
    public int members() {
        return members;
    }

    /** Crashes tolerated, f = floor((n-1)/2). */
    public int f() {
        return (members - 1) / 2;
    }

    /** Holders that make a batch stable: f+1, so at least one correct replica holds it (seed 002 §IV-B a). */
    public int stableHolders() {
        return f() + 1;
    }

    /** The ordering layer's Multi-Paxos settings (values are id lists). */
    public PaxosConfig paxos() {
        return paxos;
    }

    /** cbsz: a client batch closes once it holds this many bytes. */
    public int batchBytes() {
        return values.get(SPaxosKeys.BATCH_BYTES);
    }

    /** Longest a request waits for its client batch to fill. */
    public long batchTimeoutNanos() {
        return values.get(SPaxosKeys.BATCH_TIMEOUT).toNanos();
    }

    /** A partial client batch is disseminated at once only while fewer own batches are unstable. */
    public int eagerBelow() {
        return values.get(SPaxosKeys.EAGER_BELOW);
    }

    /** Most ids in one ordered value. */
    public int idsPerValue() {
        return values.get(SPaxosKeys.IDS_PER_VALUE);
    }

    /** Shortest quiet time towards a peer before an explicit ack goes to it (paper η). */
    public long ackIntervalNanos() {
        return values.get(SPaxosKeys.ACK_INTERVAL).toNanos();
    }

    /** How often an idle replica re-sends its ack vector to every peer (lost-ack repair, Alg. 1 l.23–25). */
    public long ackRefreshNanos() {
        return values.get(SPaxosKeys.ACK_REFRESH).toNanos();
    }

    /** Δ: how long an acked-but-missing body waits before RESENDFORWARD, and between retries (Alg. 1 l.26–29). */
    public long resendDelayNanos() {
        return values.get(SPaxosKeys.RESEND_DELAY).toNanos();
    }

    /** B: most own undecided batches an origin numbers ahead of its lowest undecided one. */
    public int maxUndecidedPerOrigin() {
        return values.get(SPaxosKeys.MAX_UNDECIDED);
    }

    /** Most body bytes one RESENDFORWARD answer carries (the first body always goes). */
    public int resendMaxBytes() {
        return values.get(SPaxosKeys.RESEND_MAX_BYTES);
    }

    @Override
    public String toString() {
        return "SPaxosConfig{n=" + members + ", " + values + ", paxos=" + paxos + "}";
    }

    /** Mutable builder, not thread-safe; setters validate at once, {@link #build} checks the combination. */
    public static final class Builder {
        private final int members;
        private PaxosConfig paxos;
        private final ConfigValues.Builder values = ConfigValues.builder(SPaxosKeys.TABLE);

        private Builder(int members) {
            if (members < 1 || members > 31) {
                throw new IllegalArgumentException("members must be 1..31, got " + members);
            }
            this.members = members;
        }

        /** The ordering layer's settings ({@code paxos.*} keys); default {@code PaxosConfig.builder(members).build()}. */
        public Builder paxos(PaxosConfig paxos) {
            if (paxos == null) {
                throw new IllegalArgumentException("paxos config must not be null");
            }
            this.paxos = paxos;
            return this;
        }

        /** cbsz ({@code spaxos.batch.bytes}); default {@value SPaxosConfig#DEFAULT_BATCH_BYTES}. */
        public Builder batchBytes(int bytes) {
            values.set(SPaxosKeys.BATCH_BYTES, bytes);
            return this;
        }

        /** Client batch time-out ({@code spaxos.batch.timeout.ms}); default 1 ms. */
        public Builder batchTimeout(Duration d) {
            values.set(SPaxosKeys.BATCH_TIMEOUT, d);
            return this;
        }

        /** Eager dissemination below this many own unstable batches ({@code spaxos.eager.below}); default 2. */
        public Builder eagerBelow(int batches) {
            values.set(SPaxosKeys.EAGER_BELOW, batches);
            return this;
        }

        /** Most ids per ordered value ({@code spaxos.ids.per.value}); default 64. */
        public Builder idsPerValue(int ids) {
            values.set(SPaxosKeys.IDS_PER_VALUE, ids);
            return this;
        }

        /** η: quiet time before an explicit ack ({@code spaxos.ack.interval.ms}); default 1 ms. */
        public Builder ackInterval(Duration d) {
            values.set(SPaxosKeys.ACK_INTERVAL, d);
            return this;
        }

        /** Idle ack refresh ({@code spaxos.ack.refresh.ms}); default 100 ms. */
        public Builder ackRefresh(Duration d) {
            values.set(SPaxosKeys.ACK_REFRESH, d);
            return this;
        }

        /** Δ ({@code spaxos.resend.delay.ms}); default 50 ms. */
        public Builder resendDelay(Duration d) {
            values.set(SPaxosKeys.RESEND_DELAY, d);
            return this;
        }

        /** B ({@code spaxos.max.undecided}); default 128, at most {@value SPaxosConfig#MAX_UNDECIDED_LIMIT}. */
        public Builder maxUndecidedPerOrigin(int batches) {
            values.set(SPaxosKeys.MAX_UNDECIDED, batches);
            return this;
        }

        /** Body bytes per RESENDFORWARD answer ({@code spaxos.resend.max.bytes}); default 1 MiB. */
        public Builder resendMaxBytes(int bytes) {
            values.set(SPaxosKeys.RESEND_MAX_BYTES, bytes);
            return this;
        }

        /**
         * @throws IllegalArgumentException if the ordering config has another member count, or
         *         {@code ackInterval > ackRefresh}
         */
        public SPaxosConfig build() {
            PaxosConfig p = paxos != null ? paxos : PaxosConfig.builder(members).build();
            if (p.members() != members) {
                throw new IllegalArgumentException("paxos config has " + p.members() + " members, S-Paxos config " + members);
            }
            Duration ackInterval = values.get(SPaxosKeys.ACK_INTERVAL);
            Duration ackRefresh = values.get(SPaxosKeys.ACK_REFRESH);
            if (ackInterval.compareTo(ackRefresh) > 0) {
                throw new IllegalArgumentException(SPaxosKeys.ACK_INTERVAL.name() + " must not exceed " + SPaxosKeys.ACK_REFRESH.name()
                        + ": " + ackInterval.toMillis() + " ms > " + ackRefresh.toMillis() + " ms");
            }
            return new SPaxosConfig(this, p);
        }

        /** The values set so far, for {@link SPaxosKeys#config}. */
        ConfigValues.Builder values() {
            return values;
        }
    }
}
