package dev.parallax.paxos;

import dev.parallax.core.config.ConfigValues;

import java.time.Duration;

/**
 * Multi-Paxos parameters. Immutable and thread-safe; built with {@link #builder(int)}.
 *
 * <p>Each parameter is a key of {@link PaxosKeys} (name, type, default, check, documentation);
 * this class holds their values and answers them in the units the core uses. Defaults: WND 10 and
 * BSZ 1300 B are seed 000's (§VI). The paper gives no timeouts; ours are chosen for a LAN or
 * loopback and shorter than JPaxos' public defaults (heartbeat 500 ms, suspect 1000 ms,
 * retransmit 1000 ms) so that fail-over takes well under a second; see docs/protocols/multi-paxos.md.
 */
public final class PaxosConfig {
    /** Default window: instances in flight at once (seed 000 §VI: WND = 10; 35 was best). */
    public static final int DEFAULT_WINDOW = 10;
    /** Default batch size: 1300 bytes, under one Ethernet frame (seed 000 §VI). */
    public static final int DEFAULT_BATCH_BYTES = 1300;
    /** Default number of decided values in one catch-up reply, and of votes in one Phase 1 page. */
    public static final int DEFAULT_CATCH_UP_MAX_INSTANCES = 256;
    /**
     * Default byte budget of one catch-up reply's values, and of one Phase 1 page's votes: 1 MiB,
     * a sixteenth of the default 16 MiB frame limit ({@code ReplicaConfig.DEFAULT_MAX_FRAME}), so
     * that a reply always fits a frame and never holds the replica link for long.
     */
    public static final int DEFAULT_CATCH_UP_MAX_BYTES = 1 << 20;

    private final int members;
    private final ConfigValues values;

    private PaxosConfig(Builder b) {
        this.members = b.members;
        this.values = b.values.build();
    }

    /** A builder for a cluster of {@code members} replicas, with every default set. */
    public static Builder builder(int members) {
        return new Builder(members);
    }

    /**
     * Number of replicas the cluster file lists, n: the initial membership is voters {@code 0..n-1}
     * (membership changes then add and remove replicas, see {@code MembershipHistory}).
     */
    public int members() {
        return members;
    }

    /** Majority quorum size of the initial membership, floor(n/2)+1. */
    public int quorum() {
        return members / 2 + 1;
    }

    /** Instances in flight below which a partial batch is proposed at once (at most WND). */
    public int eagerBelow() {
        Integer e = values.get(PaxosKeys.EAGER_BELOW);
        return e == null ? window() : Math.min(e, window());
    }

    /** WND ({@code paxos.window}). */
    public int window() {
        return values.get(PaxosKeys.WINDOW);
    }

    /** BSZ ({@code paxos.batch.bytes}). */
    public int batchBytes() {
        return values.get(PaxosKeys.BATCH_BYTES);
    }

    public long batchTimeoutNanos() {
        return values.get(PaxosKeys.BATCH_TIMEOUT).toNanos();
    }

    public long heartbeatNanos() {
        return values.get(PaxosKeys.HEARTBEAT).toNanos();
    }

    public long suspectNanos() {
        return values.get(PaxosKeys.SUSPECT).toNanos();
    }

    public long retransmitNanos() {
        return values.get(PaxosKeys.RETRANSMIT).toNanos();
    }

    public long catchUpNanos() {
        return values.get(PaxosKeys.CATCH_UP).toNanos();
    }

    /**
     * Longest a restarted replica that has heard from no peer yet waits before it starts a view
     * (see {@link Builder#restartHold}).
     */
    public long restartHoldNanos() {
        return values.get(PaxosKeys.RESTART_HOLD).toNanos();
    }

    /** The lease window voters promise ({@code paxos.read.lease.ms}, rule L1 of {@code ReadIndexRounds}); 0 without leases. */
    public long readLeaseWindowNanos() {
        return values.get(PaxosKeys.READ_LEASE).toNanos();
    }

    /** The clock-rate drift bound ρ in parts per million ({@code paxos.read.lease.drift.ppm}). */
    public int readLeaseDriftPpm() {
        return values.get(PaxosKeys.READ_LEASE_DRIFT);
    }

    /**
     * The leader's lease after a confirmation round (rule L2): the window times
     * {@code (1 − ρ) / (1 + ρ)}; 0 without leases.
     */
    public long readLeaseNanos() {
        long window = readLeaseWindowNanos();
        long ppm = readLeaseDriftPpm();
        return (long) (window * ((1_000_000.0 - ppm) / (1_000_000.0 + ppm)));
    }

    public int catchUpMaxInstances() {
        return values.get(PaxosKeys.CATCH_UP_MAX_INSTANCES);
    }

    /** See {@link Builder#catchUpMaxBytes(int)}. */
    public int catchUpMaxBytes() {
        return values.get(PaxosKeys.CATCH_UP_MAX_BYTES);
    }

    @Override
    public String toString() {
        return "PaxosConfig{n=" + members + ", eagerBelow=" + eagerBelow() + ", " + values + "}";
    }

    /** Mutable builder, not thread-safe; setters validate at once. */
    public static final class Builder {
        private final int members;
        private final ConfigValues.Builder values = ConfigValues.builder(PaxosKeys.TABLE);

        private Builder(int members) {
            if (members < 1 || members > 31) {
                throw new IllegalArgumentException("members must be 1..31, got " + members);
            }
            this.members = members;
        }

        /** WND: instances in flight at once; default {@value PaxosConfig#DEFAULT_WINDOW}. */
        public Builder window(int window) {
            values.set(PaxosKeys.WINDOW, window);
            return this;
        }

        /** BSZ: a batch closes once it holds this many bytes; default {@value PaxosConfig#DEFAULT_BATCH_BYTES}. */
        public Builder batchBytes(int bytes) {
            values.set(PaxosKeys.BATCH_BYTES, bytes);
            return this;
        }

        /** Longest a request waits for its batch to fill; default 1 ms. */
        public Builder batchTimeout(Duration d) {
            values.set(PaxosKeys.BATCH_TIMEOUT, d);
            return this;
        }

        /**
         * Partial batches are proposed at once (without waiting for BSZ or the batch time-out) only
         * while fewer than this many instances are in flight; default WND, which is seed 000's
         * rule (a batch closes as soon as the window has room). A small value (1: only when the
         * pipeline is empty) lets batches grow with the load — fewer, larger instances per command
         * at high load, no added latency at low load.
         */
        public Builder eagerBelow(int instances) {
            values.set(PaxosKeys.EAGER_BELOW, instances);
            return this;
        }

        /** How often an idle leader tells followers it is alive; default 50 ms. */
        public Builder heartbeat(Duration d) {
            values.set(PaxosKeys.HEARTBEAT, d);
            return this;
        }

        /** Silence from the leader after which a follower suspects it; default 500 ms. */
        public Builder suspect(Duration d) {
            values.set(PaxosKeys.SUSPECT, d);
            return this;
        }

        /** How long before an unanswered Prepare or Propose is sent again; default 200 ms. */
        public Builder retransmit(Duration d) {
            values.set(PaxosKeys.RETRANSMIT, d);
            return this;
        }

        /** How often a lagging replica asks a peer for decided instances; default 100 ms. */
        public Builder catchUp(Duration d) {
            values.set(PaxosKeys.CATCH_UP, d);
            return this;
        }

        /**
         * A replica restarted from a non-empty log starts no view until it has heard from a peer,
         * or for at most this long after its start (so that a restarted replica never takes
         * leadership from a working leader). Until a peer's message arrives it cannot know the
         * view the others are in, and the peers' connections to it come back with back-off (the
         * replica port's cap is 1 s). Default 2 s. It delays the first view after a restart of
         * the whole cluster (nobody speaks before a view starts) by at most this much.
         */
        public Builder restartHold(Duration d) {
            values.set(PaxosKeys.RESTART_HOLD, d);
            return this;
        }

        /**
         * Most instances one catch-up reply, or one page of a Phase 1 reply, carries; default
         * {@value PaxosConfig#DEFAULT_CATCH_UP_MAX_INSTANCES}.
         */
        public Builder catchUpMaxInstances(int n) {
            values.set(PaxosKeys.CATCH_UP_MAX_INSTANCES, n);
            return this;
        }

        /**
         * Most bytes of values (with their per-value framing) one catch-up reply, or one page of a
         * Phase 1 reply, carries; default {@value PaxosConfig#DEFAULT_CATCH_UP_MAX_BYTES} (1 MiB).
         * The first value always goes, alone if it is larger, so that every reply makes progress.
         * Keep it well under the replicas' frame limit ({@code ReplicaConfig.maxFrameBytes()}, 16 MiB
         * by default): a reply bounded by count only (256 values of 1 MiB) outgrows a frame, is
         * refused by the receiver, and the lagging replica never catches up without a snapshot.
         */
        public Builder catchUpMaxBytes(int bytes) {
            values.set(PaxosKeys.CATCH_UP_MAX_BYTES, bytes);
            return this;
        }

        /**
         * Leader leases for queries ({@code ReadIndexRounds} rules L1–L3): a voter that confirmed the
         * leader adopts no newer view for {@code window}; the leader answers queries without a
         * confirmation round for the window less the drift margin. {@link Duration#ZERO} (the
         * default) turns leases off. At most the suspect time-out.
         */
        public Builder readLease(Duration window) {
            values.set(PaxosKeys.READ_LEASE, window);
            return this;
        }

        /** The clock-rate drift bound of {@link #readLease}, in parts per million; default 10000 (1%). */
        public Builder readLeaseDriftPpm(int ppm) {
            values.set(PaxosKeys.READ_LEASE_DRIFT, ppm);
            return this;
        }

        /** The values set so far, for readers that set keys from a cluster file ({@link PaxosKeys#config}). */
        ConfigValues.Builder values() {
            return values;
        }

        /** @throws IllegalArgumentException if the timeouts disagree (suspect must exceed heartbeat) */
        public PaxosConfig build() {
            Duration suspect = values.get(PaxosKeys.SUSPECT);
            Duration heartbeat = values.get(PaxosKeys.HEARTBEAT);
            if (suspect.compareTo(heartbeat.multipliedBy(2)) < 0) {
                throw new IllegalArgumentException(PaxosKeys.SUSPECT.name() + " (" + suspect.toMillis() + " ms) must be at least twice the "
                        + "heartbeat, " + PaxosKeys.HEARTBEAT.name() + " (" + heartbeat.toMillis() + " ms), or a live leader gets suspected");
            }
            Duration lease = values.get(PaxosKeys.READ_LEASE);
            if (lease.compareTo(suspect) > 0) {
                throw new IllegalArgumentException(PaxosKeys.READ_LEASE.name() + " (" + lease.toMillis() + " ms) must be at most "
                        + PaxosKeys.SUSPECT.name() + " (" + suspect.toMillis() + " ms): a voter that confirmed the leader "
                        + "suspects it only after that, and must not start a view within its window");
            }
            return new PaxosConfig(this);
        }
    }
}
