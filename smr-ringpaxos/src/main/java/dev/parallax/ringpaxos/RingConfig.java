package dev.parallax.ringpaxos;

import java.time.Duration;
import java.util.Objects;

/**
 * Ring Paxos parameters, for both variants (seed 003 (Ring Paxos) ch. 3: U-Ring, Alg. 3, and M-Ring,
 * Alg. 2). Immutable and thread-safe; built with {@link #builder(int, Ring.Kind)}.
 *
 * <p>{@code ring.*} values apply to both variants, {@code mring.*} only to M-Ring (IP-multicast). The
 * paper gives no timeouts and no flow-control constants; ours are chosen for a LAN or loopback and
 * documented in docs/protocols/ring-paxos.md ("Configuration"). The defaults are the cluster-file
 * keys' defaults (plan §1.10):
 * <pre>
 * ring.window 32            ring.batch.bytes 8000        ring.batch.timeout.ms 1    ring.eager.below 2
 * ring.packet.bytes 32768   ring.heartbeat.ms 50         ring.suspect.ms 500        ring.retransmit.ms 100
 * ring.catchup.ms 100       ring.catchup.max.instances 256  ring.catchup.max.bytes 1048576
 * ring.stall.ms 1000        ring.rejoin.backoff.ms 1000  ring.rejoin.lag 64         ring.max.backlog 1024
 * ring.max.pending 64       ring.proposal.retry.ms 1000  ring.restart.hold.ms 2000
 * ring.lambda 0             ring.delta.ms 5
 * mring.group 239.255.80.1  mring.port 7400  mring.interface 127.0.0.1  mring.ttl 1
 * mring.packet.bytes 8192   mring.socket.buffer.bytes 4194304  mring.window.min 1
 * mring.retransmit.ms 20    mring.retransmit.max.bytes 1048576  mring.fc.threshold 256
 * mring.fc.decrease.ms 10   mring.fc.increase.ms 5  mring.learner.buffer 4096
 * mring.learner.buffer.bytes 67108864  mring.test.faults ""
 * </pre>
 *
 * <p>Membership: n members (1..31, odd or even), every one an acceptor, learner and proposer.
 * Quorums are majorities, {@code n/2 + 1} ({@link #quorum()}; any two intersect: seed 003 (Ring
 * Paxos) §3.2, an m-quorum has ⌈(|N_a|+1)/2⌉ acceptors): a Phase 1 quorum is any majority, and a
 * ring holds a majority of acceptors ({@link #ringAcceptors()}; its Phase 2 quorum is all of
 * them). {@code f = n − quorum = ⌊(n−1)/2⌋} failures are tolerated ({@link #f()}). For odd
 * n = 2f+1 the quorum is f+1, as in the paper; n = 4 has quorum 3 and tolerates 1 failure, n = 6
 * has quorum 4 and tolerates 2.
 *
 * <p>Skips (Multi-Ring Paxos, seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1 l.13-20):
 * with {@code ring.lambda} λ &gt; 0 the coordinator, every {@code ring.delta.ms} Δ, decides one skip
 * to the logical target λ·⌊now / 1 ms⌋ / 1000 if the ring is behind it, and opens no client instance
 * while it is one interval (λ·Δ) ahead of it; {@code now} is then read as nanoseconds since the Unix
 * epoch. λ = 0 (the default): no skips, no cap — plain U-Ring / M-Ring.
 */
public final class RingConfig {
    /** Largest {@code ring.max.backlog}: below the runtime's default {@code maxUndelivered} (4096). */
    public static final int MAX_BACKLOG_LIMIT = 4096;
    /** Smallest packet size (either variant). */
    public static final int MIN_PACKET_BYTES = 512;
    /** Largest {@code ring.lambda}: one instance per nanosecond (the target arithmetic stays in range). */
    public static final long MAX_LAMBDA = 1_000_000_000L;
    /** Longest {@code ring.delta.ms}. */
    public static final Duration MAX_SKIP_INTERVAL = Duration.ofSeconds(60);

    private final int members;
    private final Ring.Kind kind;
    private final int window;
    private final int batchBytes;
    private final long batchTimeoutNanos;
    private final int eagerBelow;
    private final int packetBytes;
    private final long heartbeatNanos;
    private final long suspectNanos;
    private final long retransmitNanos;
    private final long catchUpNanos;
    private final int catchUpMaxInstances;
    private final int catchUpMaxBytes;
    private final long stallNanos;
    private final long rejoinBackoffNanos;
    private final int rejoinLag;
    private final int maxBacklog;
    private final int maxPending;
    private final long proposalRetryNanos;
    private final long restartHoldNanos;
    private final long lambda;
    private final long skipIntervalNanos;
    private final String mringGroup;
    private final int mringPort;
    private final String mringInterface;
    private final int mringTtl;
    private final int mringPacketBytes;
    private final int mringSocketBufferBytes;
    private final int mringWindowMin;
    private final long mringRetransmitNanos;
    private final int mringRetransmitMaxBytes;
    private final int mringFcThreshold;
    private final long mringFcDecreaseNanos;
    private final long mringFcIncreaseNanos;
    private final int mringLearnerBuffer;
    private final long mringLearnerBufferBytes;
    private final String mringTestFaults;

    private RingConfig(Builder b) {
        this.members = b.members;
        this.kind = b.kind;
        this.window = b.window;
        this.batchBytes = b.batchBytes;
        this.batchTimeoutNanos = b.batchTimeout.toNanos();
        this.eagerBelow = Math.min(b.eagerBelow, b.window);
        this.packetBytes = b.packetBytes;
        this.heartbeatNanos = b.heartbeat.toNanos();
        this.suspectNanos = b.suspect.toNanos();
        this.retransmitNanos = b.retransmit.toNanos();
        this.catchUpNanos = b.catchUp.toNanos();
        this.catchUpMaxInstances = b.catchUpMaxInstances;
        this.catchUpMaxBytes = b.catchUpMaxBytes;
        this.stallNanos = b.stall.toNanos();
        this.rejoinBackoffNanos = b.rejoinBackoff.toNanos();
        this.rejoinLag = b.rejoinLag;
        this.maxBacklog = b.maxBacklog;
        this.maxPending = b.maxPending;
        this.proposalRetryNanos = b.proposalRetry.toNanos();
        this.restartHoldNanos = b.restartHold.toNanos();
        this.lambda = b.lambda;
        this.skipIntervalNanos = b.skipInterval.toNanos();
        this.mringGroup = b.mringGroup;
        this.mringPort = b.mringPort;
        this.mringInterface = b.mringInterface;
        this.mringTtl = b.mringTtl;
        this.mringPacketBytes = b.mringPacketBytes;
        this.mringSocketBufferBytes = b.mringSocketBufferBytes;
        this.mringWindowMin = b.mringWindowMin;
        this.mringRetransmitNanos = b.mringRetransmit.toNanos();
        this.mringRetransmitMaxBytes = b.mringRetransmitMaxBytes;
        this.mringFcThreshold = b.mringFcThreshold;
        this.mringFcDecreaseNanos = b.mringFcDecrease.toNanos();
        this.mringFcIncreaseNanos = b.mringFcIncrease.toNanos();
        this.mringLearnerBuffer = b.mringLearnerBuffer;
        this.mringLearnerBufferBytes = b.mringLearnerBufferBytes;
        this.mringTestFaults = b.mringTestFaults;
    }

    /**
     * A builder for a cluster of {@code members} replicas (1..31, odd or even) running variant
     * {@code kind}, with every default set.
     *
     * @throws IllegalArgumentException if {@code members} is out of range
     */
    public static Builder builder(int members, Ring.Kind kind) {
        return new Builder(members, kind);
    }

    /**
     * A builder holding every setting of this configuration, for variant {@code kind} (this one's
     * or the other): to derive a ring's configuration from a template (Multi-Ring Paxos builds
     * every ring from one).
     */
    public Builder toBuilder(Ring.Kind kind) {
        return toBuilder(kind, members);
    }

    /**
     * {@link #toBuilder(Ring.Kind)} for a ring of {@code members} members (a Multi-Ring ring over a
     * subset of the processes, seed 004 (S-SMR): a partition's ring over its replicas).
     */
    public Builder toBuilder(Ring.Kind kind, int members) {
        Builder b = new Builder(members, kind);
        b.window = window;
        b.batchBytes = batchBytes;
        b.batchTimeout = Duration.ofNanos(batchTimeoutNanos);
        b.eagerBelow = eagerBelow;
        b.packetBytes = packetBytes;
        b.heartbeat = Duration.ofNanos(heartbeatNanos);
        b.suspect = Duration.ofNanos(suspectNanos);
        b.retransmit = Duration.ofNanos(retransmitNanos);
        b.catchUp = Duration.ofNanos(catchUpNanos);
        b.catchUpMaxInstances = catchUpMaxInstances;
        b.catchUpMaxBytes = catchUpMaxBytes;
        b.stall = Duration.ofNanos(stallNanos);
        b.rejoinBackoff = Duration.ofNanos(rejoinBackoffNanos);
        b.rejoinLag = rejoinLag;
        b.maxBacklog = maxBacklog;
        b.maxPending = maxPending;
        b.proposalRetry = Duration.ofNanos(proposalRetryNanos);
        b.restartHold = Duration.ofNanos(restartHoldNanos);
        b.lambda = lambda;
        b.skipInterval = Duration.ofNanos(skipIntervalNanos);
        b.mringGroup = mringGroup;
        b.mringPort = mringPort;
        b.mringInterface = mringInterface;
        b.mringTtl = mringTtl;
        b.mringPacketBytes = mringPacketBytes;
        b.mringSocketBufferBytes = mringSocketBufferBytes;
        b.mringWindowMin = mringWindowMin;
        b.mringRetransmit = Duration.ofNanos(mringRetransmitNanos);
        b.mringRetransmitMaxBytes = mringRetransmitMaxBytes;
        b.mringFcThreshold = mringFcThreshold;
        b.mringFcDecrease = Duration.ofNanos(mringFcDecreaseNanos);
        b.mringFcIncrease = Duration.ofNanos(mringFcIncreaseNanos);
        b.mringLearnerBuffer = mringLearnerBuffer;
        b.mringLearnerBufferBytes = mringLearnerBufferBytes;
        b.mringTestFaults = mringTestFaults;
        return b;
    }

    /** {@link #toBuilder(Ring.Kind)} for this configuration's own variant. */
    public Builder toBuilder() {
        return toBuilder(kind);
    }

    /** n, the number of replicas (1..31). */
    public int members() {
        return members;
    }

    /** The variant: U-Ring (Alg. 3) or M-Ring (Alg. 2). */
    public Ring.Kind kind() {
        return kind;
    }

    /**
     * f, the number of failures tolerated: {@code n − quorum() = ⌊(n−1)/2⌋} (a majority stays up).
     * Not a quorum size: for even n, {@code f + 1} is no majority.
     */
    public int f() {
        return members - quorum();
    }

    /**
     * A quorum, Phase 1's and the ring's: a majority, {@code n/2 + 1} (f+1 for odd n = 2f+1; seed
     * 003 (Ring Paxos) §3.2: an m-quorum has ⌈(|N_a|+1)/2⌉ acceptors).
     */
    public int quorum() {
        return members / 2 + 1;
    }

    /** The members of a quorum besides oneself (the coordinator): {@code quorum() − 1}. */
    public int othersInQuorum() {
        return quorum() - 1;
    }

    /**
     * Acceptors on a ring (Phase 2 quorum, all of them): a majority, {@link #quorum()} (seed 003
     * (Ring Paxos) §3.3.2 ¶1: f+1 of 2f+1), so that every ring meets every Phase 1 quorum.
     */
    public int ringAcceptors() {
        return quorum();
    }

    /** The coordinator of {@code round}: {@code round mod n} (plan §1.1). */
    public int coordinatorOf(long round) {
        return (int) Math.floorMod(round, (long) members);
    }

    /** The next round above {@code round} that {@code member} coordinates (plan §1.1). */
    public long nextRoundOf(int member, long round) {
        long next = round + 1;
        return next + Math.floorMod(member - next, (long) members);
    }

    /** {@code ring.window}: most instances open at once (U-Ring; M-Ring's AIMD maximum). */
    public int window() {
        return window;
    }

    /** {@code ring.batch.bytes}: BSZ, a batch closes at this many bytes. */
    public int batchBytes() {
        return batchBytes;
    }

    /** {@code ring.batch.timeout.ms}: longest a request waits for its batch to fill. */
    public long batchTimeoutNanos() {
        return batchTimeoutNanos;
    }

    /** {@code ring.eager.below}: partial batches are proposed at once only below this many open/pending (≤ window). */
    public int eagerBelow() {
        return eagerBelow;
    }

    /** {@code ring.packet.bytes}: largest U-Ring packet (a bigger single entry goes alone). */
    public int packetBytes() {
        return packetBytes;
    }

    /** {@code ring.heartbeat.ms}: period of {@code Heartbeat} and {@code Alive}. */
    public long heartbeatNanos() {
        return heartbeatNanos;
    }

    /** {@code ring.suspect.ms}: silence after which a member or the coordinator is suspected. */
    public long suspectNanos() {
        return suspectNanos;
    }

    /** {@code ring.retransmit.ms}: U-Ring open instances and Phase 1 are re-sent after this. */
    public long retransmitNanos() {
        return retransmitNanos;
    }

    /** {@code ring.catchup.ms}: period of catch-up queries while behind. */
    public long catchUpNanos() {
        return catchUpNanos;
    }

    /** {@code ring.catchup.max.instances}: most instances in one catch-up reply or Phase 1 page. */
    public int catchUpMaxInstances() {
        return catchUpMaxInstances;
    }

    /** {@code ring.catchup.max.bytes}: most value bytes in one catch-up reply or Phase 1 page (first always goes). */
    public int catchUpMaxBytes() {
        return catchUpMaxBytes;
    }

    /** {@code ring.stall.ms}: an open instance undecided this long triggers re-formation (plan §1.7 (2)). */
    public long stallNanos() {
        return stallNanos;
    }

    /** {@code ring.rejoin.backoff.ms}: first back-off of an excluded member (doubles per exclusion, ≤ 30 s). */
    public long rejoinBackoffNanos() {
        return rejoinBackoffNanos;
    }

    /** {@code ring.rejoin.lag}: an off-ring member rejoins only this close to the decided extent. */
    public int rejoinLag() {
        return rejoinLag;
    }

    /** {@code ring.max.backlog}: U-Ring opens instance i only if i &lt; min delivered on the ring + this. */
    public int maxBacklog() {
        return maxBacklog;
    }

    /** {@code ring.max.pending}: most own undecided proposals per proposer. */
    public int maxPending() {
        return maxPending;
    }

    /** {@code ring.proposal.retry.ms}: an undecided own proposal is forwarded again after this. */
    public long proposalRetryNanos() {
        return proposalRetryNanos;
    }

    /** {@code ring.restart.hold.ms}: a restarted member starts no round before hearing a peer or this long. */
    public long restartHoldNanos() {
        return restartHoldNanos;
    }

    /**
     * {@code ring.lambda}: λ, the logical instances per second the coordinator's skips keep the ring
     * at (seed 003 ch. 5, Alg. 1 l.13-20, §5.4.6; per second, not per Δ); 0: no skips, no cap.
     */
    public long lambda() {
        return lambda;
    }

    /** {@code ring.delta.ms}: Δ, how often the coordinator checks whether a skip is due (with λ &gt; 0). */
    public long skipIntervalNanos() {
        return skipIntervalNanos;
    }

    /** {@code mring.group}: the IP-multicast group address. */
    public String mringGroup() {
        return mringGroup;
    }

    /** {@code mring.port}: the UDP port of the group. */
    public int mringPort() {
        return mringPort;
    }

    /** {@code mring.interface}: the address of the interface datagrams go out on. */
    public String mringInterface() {
        return mringInterface;
    }

    /** {@code mring.ttl}: IP multicast time-to-live. */
    public int mringTtl() {
        return mringTtl;
    }

    /** {@code mring.packet.bytes}: largest datagram. */
    public int mringPacketBytes() {
        return mringPacketBytes;
    }

    /** {@code mring.socket.buffer.bytes}: requested socket receive/send buffer. */
    public int mringSocketBufferBytes() {
        return mringSocketBufferBytes;
    }

    /** {@code mring.window.min}: the AIMD window's floor. */
    public int mringWindowMin() {
        return mringWindowMin;
    }

    /** {@code mring.retransmit.ms}: 2As open this long are sent again as datagrams. */
    public long mringRetransmitNanos() {
        return mringRetransmitNanos;
    }

    /** {@code mring.retransmit.max.bytes}: most bytes sent again per tick. */
    public int mringRetransmitMaxBytes() {
        return mringRetransmitMaxBytes;
    }

    /** {@code mring.fc.threshold}: a learner backlog at or above this halves the window. */
    public int mringFcThreshold() {
        return mringFcThreshold;
    }

    /** {@code mring.fc.decrease.ms}: the window halves at most once per this. */
    public long mringFcDecreaseNanos() {
        return mringFcDecreaseNanos;
    }

    /** {@code mring.fc.increase.ms}: the window grows by one per this without a backlog report. */
    public long mringFcIncreaseNanos() {
        return mringFcIncreaseNanos;
    }

    /** {@code mring.learner.buffer}: most instances a learner buffers ahead of its decided prefix. */
    public int mringLearnerBuffer() {
        return mringLearnerBuffer;
    }

    /** {@code mring.learner.buffer.bytes}: most value bytes a learner buffers ahead. */
    public long mringLearnerBufferBytes() {
        return mringLearnerBufferBytes;
    }

    /** {@code mring.test.faults}: datagram fault injection spec (tests/chaos only), "" for none. */
    public String mringTestFaults() {
        return mringTestFaults;
    }

    @Override
    public String toString() {
        return "RingConfig{n=" + members + ", kind=" + kind + ", window=" + window + ", batchBytes=" + batchBytes
                + ", batchTimeout=" + Duration.ofNanos(batchTimeoutNanos) + ", eagerBelow=" + eagerBelow
                + ", packetBytes=" + packetBytes + ", heartbeat=" + Duration.ofNanos(heartbeatNanos)
                + ", suspect=" + Duration.ofNanos(suspectNanos) + ", retransmit=" + Duration.ofNanos(retransmitNanos)
                + ", catchUp=" + Duration.ofNanos(catchUpNanos) + ", catchUpMaxInstances=" + catchUpMaxInstances
                + ", catchUpMaxBytes=" + catchUpMaxBytes + ", stall=" + Duration.ofNanos(stallNanos)
                + ", rejoinBackoff=" + Duration.ofNanos(rejoinBackoffNanos) + ", rejoinLag=" + rejoinLag
                + ", maxBacklog=" + maxBacklog + ", maxPending=" + maxPending
                + ", proposalRetry=" + Duration.ofNanos(proposalRetryNanos) + ", restartHold=" + Duration.ofNanos(restartHoldNanos)
                + ", lambda=" + lambda + ", delta=" + Duration.ofNanos(skipIntervalNanos)
                + ", mring.group=" + mringGroup + ":" + mringPort + ", mring.interface=" + mringInterface
                + ", mring.ttl=" + mringTtl + ", mring.packetBytes=" + mringPacketBytes
                + ", mring.socketBufferBytes=" + mringSocketBufferBytes + ", mring.windowMin=" + mringWindowMin
                + ", mring.retransmit=" + Duration.ofNanos(mringRetransmitNanos)
                + ", mring.retransmitMaxBytes=" + mringRetransmitMaxBytes + ", mring.fcThreshold=" + mringFcThreshold
                + ", mring.fcDecrease=" + Duration.ofNanos(mringFcDecreaseNanos)
                + ", mring.fcIncrease=" + Duration.ofNanos(mringFcIncreaseNanos)
                + ", mring.learnerBuffer=" + mringLearnerBuffer + ", mring.learnerBufferBytes=" + mringLearnerBufferBytes
                + ", mring.testFaults=\"" + mringTestFaults + "\"}";
    }

    /** Mutable builder, not thread-safe; setters validate their argument at once, {@link #build()} the combination. */
    public static final class Builder {
        private final int members;
        private final Ring.Kind kind;
        private int window = 32;
        private int batchBytes = 8000;
        private Duration batchTimeout = Duration.ofMillis(1);
        private int eagerBelow = 2;
        private int packetBytes = 32768;
        private Duration heartbeat = Duration.ofMillis(50);
        private Duration suspect = Duration.ofMillis(500);
        private Duration retransmit = Duration.ofMillis(100);
        private Duration catchUp = Duration.ofMillis(100);
        private int catchUpMaxInstances = 256;
        private int catchUpMaxBytes = 1 << 20;
        private Duration stall = Duration.ofMillis(1000);
        private Duration rejoinBackoff = Duration.ofMillis(1000);
        private int rejoinLag = 64;
        private int maxBacklog = 1024;
        private int maxPending = 64;
        private Duration proposalRetry = Duration.ofMillis(1000);
        private Duration restartHold = Duration.ofMillis(2000);
        private long lambda;
        private Duration skipInterval = Duration.ofMillis(5);
        private String mringGroup = "239.255.80.1";
        private int mringPort = 7400;
        private String mringInterface = "127.0.0.1";
        private int mringTtl = 1;
        private int mringPacketBytes = 8192;
        private int mringSocketBufferBytes = 4 << 20;
        private int mringWindowMin = 1;
        private Duration mringRetransmit = Duration.ofMillis(20);
        private int mringRetransmitMaxBytes = 1 << 20;
        private int mringFcThreshold = 256;
        private Duration mringFcDecrease = Duration.ofMillis(10);
        private Duration mringFcIncrease = Duration.ofMillis(5);
        private int mringLearnerBuffer = 4096;
        private long mringLearnerBufferBytes = 64L << 20;
        private String mringTestFaults = "";

        private Builder(int members, Ring.Kind kind) {
            if (members < 1 || members > 31) {
                throw new IllegalArgumentException("members must be 1..31, got " + members);
            }
            this.members = members;
            this.kind = Objects.requireNonNull(kind, "kind");
        }

        /** {@code ring.window}, default 32. */
        public Builder window(int n) {
            this.window = positive(n, "ring.window");
            return this;
        }

        /** {@code ring.batch.bytes}, default 8000. */
        public Builder batchBytes(int n) {
            this.batchBytes = positive(n, "ring.batch.bytes");
            return this;
        }

        /** {@code ring.batch.timeout.ms}, default 1 ms. */
        public Builder batchTimeout(Duration d) {
            this.batchTimeout = nonNegative(d, "ring.batch.timeout.ms");
            return this;
        }

        /** {@code ring.eager.below}, default 2 (capped at the window). */
        public Builder eagerBelow(int n) {
            this.eagerBelow = positive(n, "ring.eager.below");
            return this;
        }

        /** {@code ring.packet.bytes}, default 32768, at least 512. */
        public Builder packetBytes(int n) {
            this.packetBytes = atLeast(n, MIN_PACKET_BYTES, "ring.packet.bytes");
            return this;
        }

        /** {@code ring.heartbeat.ms}, default 50 ms. */
        public Builder heartbeat(Duration d) {
            this.heartbeat = positive(d, "ring.heartbeat.ms");
            return this;
        }

        /** {@code ring.suspect.ms}, default 500 ms; must exceed the heartbeat. */
        public Builder suspect(Duration d) {
            this.suspect = positive(d, "ring.suspect.ms");
            return this;
        }

        /** {@code ring.retransmit.ms}, default 100 ms; must be below the stall time-out. */
        public Builder retransmit(Duration d) {
            this.retransmit = positive(d, "ring.retransmit.ms");
            return this;
        }

        /** {@code ring.catchup.ms}, default 100 ms. */
        public Builder catchUp(Duration d) {
            this.catchUp = positive(d, "ring.catchup.ms");
            return this;
        }

        /** {@code ring.catchup.max.instances}, default 256. */
        public Builder catchUpMaxInstances(int n) {
            this.catchUpMaxInstances = positive(n, "ring.catchup.max.instances");
            return this;
        }

        /** {@code ring.catchup.max.bytes}, default 1 MiB. */
        public Builder catchUpMaxBytes(int n) {
            this.catchUpMaxBytes = positive(n, "ring.catchup.max.bytes");
            return this;
        }

        /** {@code ring.stall.ms}, default 1000 ms. */
        public Builder stall(Duration d) {
            this.stall = positive(d, "ring.stall.ms");
            return this;
        }

        /** {@code ring.rejoin.backoff.ms}, default 1000 ms. */
        public Builder rejoinBackoff(Duration d) {
            this.rejoinBackoff = nonNegative(d, "ring.rejoin.backoff.ms");
            return this;
        }

        /** {@code ring.rejoin.lag}, default 64 instances. */
        public Builder rejoinLag(int n) {
            this.rejoinLag = nonNegative(n, "ring.rejoin.lag");
            return this;
        }

        /** {@code ring.max.backlog}, default 1024, below {@value RingConfig#MAX_BACKLOG_LIMIT}. */
        public Builder maxBacklog(int n) {
            this.maxBacklog = positive(n, "ring.max.backlog");
            return this;
        }

        /** {@code ring.max.pending}, default 64. */
        public Builder maxPending(int n) {
            this.maxPending = positive(n, "ring.max.pending");
            return this;
        }

        /** {@code ring.proposal.retry.ms}, default 1000 ms. */
        public Builder proposalRetry(Duration d) {
            this.proposalRetry = positive(d, "ring.proposal.retry.ms");
            return this;
        }

        /** {@code ring.restart.hold.ms}, default 2000 ms. */
        public Builder restartHold(Duration d) {
            this.restartHold = nonNegative(d, "ring.restart.hold.ms");
            return this;
        }

        /**
         * {@code ring.lambda}: λ in logical instances per second, default 0 (off); 0..{@value
         * RingConfig#MAX_LAMBDA}.
         */
        public Builder lambda(long instancesPerSecond) {
            if (instancesPerSecond < 0 || instancesPerSecond > MAX_LAMBDA) {
                throw new IllegalArgumentException("ring.lambda must be 0 (off) .. " + MAX_LAMBDA
                        + " instances per second, got " + instancesPerSecond);
            }
            this.lambda = instancesPerSecond;
            return this;
        }

        /** {@code ring.delta.ms}: Δ, default 5 ms; positive, at most 60 s. */
        public Builder skipInterval(Duration d) {
            positive(d, "ring.delta.ms");
            if (d.compareTo(MAX_SKIP_INTERVAL) > 0) {
                throw new IllegalArgumentException("ring.delta.ms must be <= " + MAX_SKIP_INTERVAL.toMillis()
                        + " ms, got " + d.toMillis() + " ms");
            }
            this.skipInterval = d;
            return this;
        }

        /** {@code mring.group}, default 239.255.80.1. */
        public Builder mringGroup(String group) {
            this.mringGroup = nonBlank(group, "mring.group");
            return this;
        }

        /** {@code mring.port}, default 7400 (1..65535). */
        public Builder mringPort(int port) {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("mring.port must be 1..65535, got " + port);
            }
            this.mringPort = port;
            return this;
        }

        /** {@code mring.interface}, default 127.0.0.1. */
        public Builder mringInterface(String address) {
            this.mringInterface = nonBlank(address, "mring.interface");
            return this;
        }

        /** {@code mring.ttl}, default 1 (0..255). */
        public Builder mringTtl(int ttl) {
            if (ttl < 0 || ttl > 255) {
                throw new IllegalArgumentException("mring.ttl must be 0..255, got " + ttl);
            }
            this.mringTtl = ttl;
            return this;
        }

        /** {@code mring.packet.bytes}, default 8192, 512..65507. */
        public Builder mringPacketBytes(int n) {
            atLeast(n, MIN_PACKET_BYTES, "mring.packet.bytes");
            if (n > 65507) {
                throw new IllegalArgumentException("mring.packet.bytes must be <= 65507 (one UDP datagram), got " + n);
            }
            this.mringPacketBytes = n;
            return this;
        }

        /** {@code mring.socket.buffer.bytes}, default 4 MiB. */
        public Builder mringSocketBufferBytes(int n) {
            this.mringSocketBufferBytes = positive(n, "mring.socket.buffer.bytes");
            return this;
        }

        /** {@code mring.window.min}, default 1; at most the window. */
        public Builder mringWindowMin(int n) {
            this.mringWindowMin = positive(n, "mring.window.min");
            return this;
        }

        /** {@code mring.retransmit.ms}, default 20 ms. */
        public Builder mringRetransmit(Duration d) {
            this.mringRetransmit = positive(d, "mring.retransmit.ms");
            return this;
        }

        /** {@code mring.retransmit.max.bytes}, default 1 MiB. */
        public Builder mringRetransmitMaxBytes(int n) {
            this.mringRetransmitMaxBytes = positive(n, "mring.retransmit.max.bytes");
            return this;
        }

        /** {@code mring.fc.threshold}, default 256. */
        public Builder mringFcThreshold(int n) {
            this.mringFcThreshold = positive(n, "mring.fc.threshold");
            return this;
        }

        /** {@code mring.fc.decrease.ms}, default 10 ms. */
        public Builder mringFcDecrease(Duration d) {
            this.mringFcDecrease = positive(d, "mring.fc.decrease.ms");
            return this;
        }

        /** {@code mring.fc.increase.ms}, default 5 ms. */
        public Builder mringFcIncrease(Duration d) {
            this.mringFcIncrease = positive(d, "mring.fc.increase.ms");
            return this;
        }

        /** {@code mring.learner.buffer}, default 4096 instances. */
        public Builder mringLearnerBuffer(int n) {
            this.mringLearnerBuffer = positive(n, "mring.learner.buffer");
            return this;
        }

        /** {@code mring.learner.buffer.bytes}, default 64 MiB. */
        public Builder mringLearnerBufferBytes(long n) {
            if (n <= 0) {
                throw new IllegalArgumentException("mring.learner.buffer.bytes must be > 0, got " + n);
            }
            this.mringLearnerBufferBytes = n;
            return this;
        }

        /** {@code mring.test.faults}, default "" (no faults; tests and chaos only). */
        public Builder mringTestFaults(String spec) {
            this.mringTestFaults = Objects.requireNonNull(spec, "mring.test.faults").trim();
            return this;
        }

        /**
         * @throws IllegalArgumentException if the values disagree: heartbeat &lt; suspect, retransmit
         *         &lt; stall, {@code mring.window.min} ≤ window, {@code ring.max.backlog} &lt; 4096
         */
        public RingConfig build() {
            if (heartbeat.compareTo(suspect) >= 0) {
                throw new IllegalArgumentException("ring.heartbeat.ms (" + heartbeat.toMillis()
                        + ") must be below ring.suspect.ms (" + suspect.toMillis() + "), or a live coordinator gets suspected");
            }
            if (retransmit.compareTo(stall) >= 0) {
                throw new IllegalArgumentException("ring.retransmit.ms (" + retransmit.toMillis()
                        + ") must be below ring.stall.ms (" + stall.toMillis() + ")");
            }
            if (mringRetransmit.compareTo(stall) >= 0) {
                throw new IllegalArgumentException("mring.retransmit.ms (" + mringRetransmit.toMillis()
                        + ") must be below ring.stall.ms (" + stall.toMillis() + ")");
            }
            if (mringWindowMin > window) {
                throw new IllegalArgumentException("mring.window.min (" + mringWindowMin + ") must be <= ring.window (" + window + ")");
            }
            if (maxBacklog >= MAX_BACKLOG_LIMIT) {
                throw new IllegalArgumentException("ring.max.backlog (" + maxBacklog + ") must be below " + MAX_BACKLOG_LIMIT
                        + " (the runtime's maxUndelivered)");
            }
            return new RingConfig(this);
        }

        private static int positive(int n, String key) {
            if (n <= 0) {
                throw new IllegalArgumentException(key + " must be > 0, got " + n);
            }
            return n;
        }

        private static int nonNegative(int n, String key) {
            if (n < 0) {
                throw new IllegalArgumentException(key + " must be >= 0, got " + n);
            }
            return n;
        }

        private static int atLeast(int n, int min, String key) {
            if (n < min) {
                throw new IllegalArgumentException(key + " must be >= " + min + ", got " + n);
            }
            return n;
        }

        private static Duration positive(Duration d, String key) {
            Objects.requireNonNull(d, key);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(key + " must be > 0, got " + d.toMillis() + " ms");
            }
            return d;
        }

        private static Duration nonNegative(Duration d, String key) {
            Objects.requireNonNull(d, key);
            if (d.isNegative()) {
                throw new IllegalArgumentException(key + " must be >= 0, got " + d.toMillis() + " ms");
            }
            return d;
        }

        private static String nonBlank(String s, String key) {
            if (s == null || s.isBlank()) {
                throw new IllegalArgumentException(key + " must not be empty");
            }
            return s.trim();
        }
    }
}
