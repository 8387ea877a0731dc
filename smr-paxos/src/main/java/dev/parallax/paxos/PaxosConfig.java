package dev.parallax.paxos;

import java.time.Duration;

/**
 * Multi-Paxos parameters. Immutable and thread-safe; built with {@link #builder(int)}.
 *
 * <p>Defaults: WND 10 and BSZ 1300 B are seed 000's (§VI). The paper gives no timeouts; ours are
 * chosen for a LAN or loopback and shorter than JPaxos' public defaults (heartbeat 500 ms, suspect
 * 1000 ms, retransmit 1000 ms) so that fail-over takes well under a second; see
 * docs/protocols/multi-paxos.md.
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
    private final int window;
    private final int batchBytes;
    private final long batchTimeoutNanos;
    private final int eagerBelow;
    private final long heartbeatNanos;
    private final long suspectNanos;
    private final long retransmitNanos;
    private final long catchUpNanos;
    private final long restartHoldNanos;
    private final int catchUpMaxInstances;
    private final int catchUpMaxBytes;

    private PaxosConfig(Builder b) {
        this.members = b.members;
        this.window = b.window;
        this.batchBytes = b.batchBytes;
        this.batchTimeoutNanos = b.batchTimeout.toNanos();
        this.eagerBelow = b.eagerBelow == 0 ? b.window : Math.min(b.eagerBelow, b.window);
        this.heartbeatNanos = b.heartbeat.toNanos();
        this.suspectNanos = b.suspect.toNanos();
        this.retransmitNanos = b.retransmit.toNanos();
        this.catchUpNanos = b.catchUp.toNanos();
        this.restartHoldNanos = b.restartHold.toNanos();
        this.catchUpMaxInstances = b.catchUpMaxInstances;
        this.catchUpMaxBytes = b.catchUpMaxBytes;
    }

    /** A builder for a cluster of {@code members} replicas, with every default set. */
    public static Builder builder(int members) {
        return new Builder(members);
    }

    /** Number of replicas, n. */
    public int members() {
        return members;
    }

    /** Majority quorum size, floor(n/2)+1. */
    public int quorum() {
        return members / 2 + 1;
    }

    /** The leader of {@code view}: {@code view mod n} (as JPaxos; the non-negative remainder). */
    public int leaderOf(long view) {
        return (int) Math.floorMod(view, (long) members);
    }

    /** Instances in flight below which a partial batch is proposed at once (at most WND). */
    public int eagerBelow() {
        return eagerBelow;
    }

    public int window() {
        return window;
    }

    public int batchBytes() {
        return batchBytes;
    }

    public long batchTimeoutNanos() {
        return batchTimeoutNanos;
    }

    public long heartbeatNanos() {
        return heartbeatNanos;
    }

    public long suspectNanos() {
        return suspectNanos;
    }

    public long retransmitNanos() {
        return retransmitNanos;
    }

    public long catchUpNanos() {
        return catchUpNanos;
    }

    /**
     * Longest a restarted replica that has heard from no peer yet waits before it starts a view
     * (see {@link Builder#restartHold}).
     */
    public long restartHoldNanos() {
        return restartHoldNanos;
    }

    public int catchUpMaxInstances() {
        return catchUpMaxInstances;
    }

    /** See {@link Builder#catchUpMaxBytes(int)}. */
    public int catchUpMaxBytes() {
        return catchUpMaxBytes;
    }

    @Override
    public String toString() {
        return "PaxosConfig{n=" + members + ", window=" + window + ", batchBytes=" + batchBytes + ", eagerBelow=" + eagerBelow
                + ", batchTimeout=" + Duration.ofNanos(batchTimeoutNanos) + ", heartbeat=" + Duration.ofNanos(heartbeatNanos)
                + ", suspect=" + Duration.ofNanos(suspectNanos) + ", retransmit=" + Duration.ofNanos(retransmitNanos)
                + ", catchUp=" + Duration.ofNanos(catchUpNanos) + ", restartHold=" + Duration.ofNanos(restartHoldNanos) + ", catchUpMaxInstances=" + catchUpMaxInstances
                + ", catchUpMaxBytes=" + catchUpMaxBytes + "}";
    }

    /** Mutable builder, not thread-safe; setters validate at once. */
    public static final class Builder {
        private final int members;
        private int window = DEFAULT_WINDOW;
        private int batchBytes = DEFAULT_BATCH_BYTES;
        private Duration batchTimeout = Duration.ofMillis(1);
        private int eagerBelow;
        private Duration heartbeat = Duration.ofMillis(50);
        private Duration suspect = Duration.ofMillis(500);
        private Duration retransmit = Duration.ofMillis(200);
        private Duration catchUp = Duration.ofMillis(100);
        private Duration restartHold = Duration.ofSeconds(2);
        private int catchUpMaxInstances = DEFAULT_CATCH_UP_MAX_INSTANCES;
        private int catchUpMaxBytes = DEFAULT_CATCH_UP_MAX_BYTES;

        private Builder(int members) {
            if (members < 1 || members > 31) {
                throw new IllegalArgumentException("members must be 1..31, got " + members);
            }
            this.members = members;
        }

        /** WND: instances in flight at once; default {@value PaxosConfig#DEFAULT_WINDOW}. */
        public Builder window(int window) {
            this.window = positive(window, "window");
            return this;
        }

        /** BSZ: a batch closes once it holds this many bytes; default {@value PaxosConfig#DEFAULT_BATCH_BYTES}. */
        public Builder batchBytes(int bytes) {
            this.batchBytes = positive(bytes, "batchBytes");
            return this;
        }

        /** Longest a request waits for its batch to fill; default 1 ms. */
        public Builder batchTimeout(Duration d) {
            this.batchTimeout = nonNegative(d, "batchTimeout");
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
            this.eagerBelow = positive(instances, "eagerBelow");
            return this;
        }

        /** How often an idle leader tells followers it is alive; default 50 ms. */
        public Builder heartbeat(Duration d) {
            this.heartbeat = positive(d, "heartbeat");
            return this;
        }

        /** Silence from the leader after which a follower suspects it; default 500 ms. */
        public Builder suspect(Duration d) {
            this.suspect = positive(d, "suspect");
            return this;
        }

        /** How long before an unanswered Prepare or Propose is sent again; default 200 ms. */
        public Builder retransmit(Duration d) {
            this.retransmit = positive(d, "retransmit");
            return this;
        }

        /** How often a lagging replica asks a peer for decided instances; default 100 ms. */
        public Builder catchUp(Duration d) {
            this.catchUp = positive(d, "catchUp");
            return this;
        }

        /**
         * A replica restarted from a non-empty log starts no view until it has heard from a peer,
         * or for at most this long after its start (issue 12: a restarted replica never takes
         * leadership from a working leader). Until a peer's message arrives it cannot know the
         * view the others are in, and the peers' connections to it come back with back-off (the
         * replica port's cap is 1 s). Default 2 s. It delays the first view after a restart of
         * the whole cluster (nobody speaks before a view starts) by at most this much.
         */
        public Builder restartHold(Duration d) {
            this.restartHold = nonNegative(d, "restartHold");
            return this;
        }

        /**
         * Most instances one catch-up reply, or one page of a Phase 1 reply, carries; default
         * {@value PaxosConfig#DEFAULT_CATCH_UP_MAX_INSTANCES}.
         */
        public Builder catchUpMaxInstances(int n) {
            this.catchUpMaxInstances = positive(n, "catchUpMaxInstances");
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
            this.catchUpMaxBytes = positive(bytes, "catchUpMaxBytes");
            return this;
        }

        /** @throws IllegalArgumentException if the timeouts disagree (suspect must exceed heartbeat) */
        public PaxosConfig build() {
            if (suspect.compareTo(heartbeat.multipliedBy(2)) < 0) {
                throw new IllegalArgumentException("suspect (" + suspect + ") must be at least twice the heartbeat ("
                        + heartbeat + "), or a live leader gets suspected");
            }
            return new PaxosConfig(this);
        }

        private static int positive(int n, String what) {
            if (n <= 0) {
                throw new IllegalArgumentException(what + " must be > 0, got " + n);
            }
            return n;
        }

        private static Duration positive(Duration d, String what) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be > 0, got " + d);
            }
            return d;
        }

        private static Duration nonNegative(Duration d, String what) {
            if (d.isNegative()) {
                throw new IllegalArgumentException(what + " must be >= 0, got " + d);
            }
            return d;
        }
    }
}
