package dev.parallax.ringpaxos;

import dev.parallax.core.config.ConfigKey;
import dev.parallax.core.config.ConfigValues;
import dev.parallax.core.config.Settings;

import java.time.Duration;
import java.util.Objects;

/**
 * Ring Paxos parameters, for both variants (seed 003 (Ring Paxos) ch. 3: U-Ring, Alg. 3, and M-Ring,
 * Alg. 2). Immutable and thread-safe; built with {@link #builder(int, Ring.Kind)}.
 *
 * <p>Every parameter is a cluster-file key of {@link RingKeys} (its name, default, range and
 * documentation are declared there, once): {@code ring.*} values apply to both variants,
 * {@code mring.*} only to M-Ring (IP multicast). This class holds their values
 * ({@link ConfigValues} over {@link RingKeys#TABLE}) with an accessor per key, the member count
 * and the variant. The paper gives no timeouts and no flow-control constants; ours are chosen for
 * a LAN or loopback and documented in docs/protocols/ring-paxos.md ("Configuration").
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
    /** Most members of a ring cluster. */
    public static final int MAX_MEMBERS = 31;

    private final int members;
    private final Ring.Kind kind;
    private final ConfigValues values;

    private RingConfig(int members, Ring.Kind kind, ConfigValues values) {
        this.members = members;
        this.kind = kind;
        this.values = values;
    }

    /**
     * A builder for a cluster of {@code members} replicas (1..31, odd or even) running variant
     * {@code kind}, with every default set.
     *
     * @throws IllegalArgumentException if {@code members} is out of range
     */
    public static Builder builder(int members, Ring.Kind kind) {
        return new Builder(members, kind, ConfigValues.builder(RingKeys.TABLE));
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
        return new Builder(members, kind, values.toBuilder());
    }

    /** {@link #toBuilder(Ring.Kind)} for this configuration's own variant. */
    public Builder toBuilder() {
        return toBuilder(kind);
    }

    /** The value of {@code key}, one of {@link RingKeys#TABLE}'s (its default if not set). */
    public <T> T get(ConfigKey<T> key) {
        return values.get(key);
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

    /**
     * {@code ring.member.ids}: the id space, {@code [0, idSpace())} ({@link #members()} unless set
     * higher): the ids a membership change may add (see {@code RingGroup}), and what rounds rotate
     * over. Equal to n, the ring behaves as with a fixed membership.
     */
    public int idSpace() {
        int ids = values.get(RingKeys.MEMBER_IDS);
        return Math.max(members, ids);
    }

    /**
     * Whether this ring's members may change at run time ({@code ring.member.ids} set, to n or
     * more): then the coordinator follows the rules of {@code RingGroup} (configuration commands,
     * opening only where it knows the instance's set). Unset, the members are the fixed n.
     */
    public boolean membershipChanges() {
        return values.get(RingKeys.MEMBER_IDS) != 0;
    }

    /**
     * The coordinator of {@code round}: {@code round mod }{@link #idSpace()} (rounds rotate over the
     * ids; a round whose coordinator is no voter is skipped, as Multi-Paxos skips views).
     */
    public int coordinatorOf(long round) {
        return (int) Math.floorMod(round, (long) idSpace());
    }

    /** The next round above {@code round} that {@code member} coordinates. */
    public long nextRoundOf(int member, long round) {
        long next = round + 1;
        return next + Math.floorMod(member - next, (long) idSpace());
    }

    /** {@code ring.window}: most instances open at once (U-Ring; M-Ring's AIMD maximum). */
    public int window() { return values.get(RingKeys.WINDOW); }

    /** {@code ring.batch.bytes}: BSZ, a batch closes at this many bytes. */
    public int batchBytes() { return values.get(RingKeys.BATCH_BYTES); }

    /** {@code ring.batch.timeout.ms}: longest a request waits for its batch to fill. */
    public long batchTimeoutNanos() { return values.get(RingKeys.BATCH_TIMEOUT).toNanos(); }

    /** {@code ring.eager.below}: partial batches are proposed at once only below this many open/pending (≤ window). */
    public int eagerBelow() { return values.get(RingKeys.EAGER_BELOW); }

    /** {@code ring.packet.bytes}: largest U-Ring packet (a bigger single entry goes alone). */
    public int packetBytes() { return values.get(RingKeys.PACKET_BYTES); }

    /** {@code ring.heartbeat.ms}: period of {@code Heartbeat} and {@code Alive}. */
    public long heartbeatNanos() { return values.get(RingKeys.HEARTBEAT).toNanos(); }

    /** {@code ring.suspect.ms}: silence after which a member or the coordinator is suspected. */
    public long suspectNanos() { return values.get(RingKeys.SUSPECT).toNanos(); }

    /** {@code ring.retransmit.ms}: U-Ring open instances and Phase 1 are re-sent after this. */
    public long retransmitNanos() { return values.get(RingKeys.RETRANSMIT).toNanos(); }

    /** {@code ring.catchup.ms}: period of catch-up queries while behind. */
    public long catchUpNanos() { return values.get(RingKeys.CATCH_UP).toNanos(); }

    /** {@code ring.catchup.max.instances}: most instances in one catch-up reply or Phase 1 page. */
    public int catchUpMaxInstances() { return values.get(RingKeys.CATCH_UP_MAX_INSTANCES); }

    /** {@code ring.catchup.max.bytes}: most value bytes in one catch-up reply or Phase 1 page (first always goes). */
    public int catchUpMaxBytes() { return values.get(RingKeys.CATCH_UP_MAX_BYTES); }

    /** {@code ring.stall.ms}: an open instance undecided this long triggers re-formation. */
    public long stallNanos() { return values.get(RingKeys.STALL).toNanos(); }

    /** {@code ring.rejoin.backoff.ms}: first back-off of an excluded member (doubles per exclusion, ≤ 30 s). */
    public long rejoinBackoffNanos() { return values.get(RingKeys.REJOIN_BACKOFF).toNanos(); }

    /** {@code ring.rejoin.lag}: an off-ring member rejoins only this close to the decided extent. */
    public int rejoinLag() { return values.get(RingKeys.REJOIN_LAG); }

    /** {@code ring.max.backlog}: U-Ring opens instance i only if i &lt; min delivered on the ring + this. */
    public int maxBacklog() { return values.get(RingKeys.MAX_BACKLOG); }

    /** {@code ring.max.pending}: most own undecided proposals per proposer. */
    public int maxPending() { return values.get(RingKeys.MAX_PENDING); }

    /** {@code ring.proposal.retry.ms}: an undecided own proposal is forwarded again after this. */
    public long proposalRetryNanos() { return values.get(RingKeys.PROPOSAL_RETRY).toNanos(); }

    /** {@code ring.restart.hold.ms}: a restarted member starts no round before hearing a peer or this long. */
    public long restartHoldNanos() { return values.get(RingKeys.RESTART_HOLD).toNanos(); }

    /** {@code ring.lambda}: λ, logical instances per second the skips keep the ring at (seed 003 ch. 5 §5.4.6); 0: none. */
    public long lambda() { return values.get(RingKeys.LAMBDA); }

    /** {@code ring.delta.ms}: Δ, how often the coordinator checks whether a skip is due (with λ &gt; 0). */
    public long skipIntervalNanos() { return values.get(RingKeys.DELTA).toNanos(); }

    /** {@code ring.skip.demand}: whether an idle ring skips when another ring of its process decided past it. */
    public boolean skipOnDemand() { return values.get(RingKeys.SKIP_DEMAND).equals("on"); }

    /** {@code mring.speculation}: whether an M-Ring member reports tentative positions (Phase 2A) for speculative execution. */
    public boolean speculation() { return values.get(RingKeys.MRING_SPECULATION).equals("on"); }

    /** {@code mring.group}: the IP-multicast group address. */
    public String mringGroup() { return values.get(RingKeys.MRING_GROUP); }

    /** {@code mring.port}: the UDP port of the group. */
    public int mringPort() { return values.get(RingKeys.MRING_PORT); }

    /** {@code mring.interface}: the address of the interface multicast goes out on. */
    public String mringInterface() { return values.get(RingKeys.MRING_INTERFACE); }

    /** {@code mring.ttl}: multicast time-to-live. */
    public int mringTtl() { return values.get(RingKeys.MRING_TTL); }

    /** {@code mring.packet.bytes}: largest datagram. */
    public int mringPacketBytes() { return values.get(RingKeys.MRING_PACKET_BYTES); }

    /** {@code mring.socket.buffer.bytes}: requested socket receive/send buffer. */
    public int mringSocketBufferBytes() { return values.get(RingKeys.MRING_SOCKET_BUFFER_BYTES); }

    /** {@code mring.window.min}: the AIMD window's floor. */
    public int mringWindowMin() { return values.get(RingKeys.MRING_WINDOW_MIN); }

    /** {@code mring.retransmit.ms}: 2As open this long are re-multicast. */
    public long mringRetransmitNanos() { return values.get(RingKeys.MRING_RETRANSMIT).toNanos(); }

    /** {@code mring.retransmit.max.bytes}: most bytes re-multicast per tick. */
    public int mringRetransmitMaxBytes() { return values.get(RingKeys.MRING_RETRANSMIT_MAX_BYTES); }

    /** {@code mring.fc.threshold}: a learner backlog at or above this halves the window. */
    public int mringFcThreshold() { return values.get(RingKeys.MRING_FC_THRESHOLD); }

    /** {@code mring.fc.decrease.ms}: the window halves at most once per this. */
    public long mringFcDecreaseNanos() { return values.get(RingKeys.MRING_FC_DECREASE).toNanos(); }

    /** {@code mring.fc.increase.ms}: the window grows by one per this without a backlog report. */
    public long mringFcIncreaseNanos() { return values.get(RingKeys.MRING_FC_INCREASE).toNanos(); }

    /** {@code mring.learner.buffer}: most instances a learner buffers ahead of its decided prefix. */
    public int mringLearnerBuffer() { return values.get(RingKeys.MRING_LEARNER_BUFFER); }

    /** {@code mring.learner.buffer.bytes}: most value bytes a learner buffers ahead. */
    public long mringLearnerBufferBytes() { return values.get(RingKeys.MRING_LEARNER_BUFFER_BYTES); }

    /** {@code mring.test.faults}: datagram fault injection spec (tests/chaos only), "" for none. */
    public String mringTestFaults() { return values.get(RingKeys.MRING_TEST_FAULTS); }
    @Override
    public String toString() {
        return "RingConfig{n=" + members + ", kind=" + kind + ", " + values + "}";
    }

    /**
     * Mutable builder, not thread-safe; setters check their argument at once (each key's check, its
     * message naming the key), {@link #build()} the combination. Every key starts at its default.
     */
    public static final class Builder {
        private final int members;
        private final Ring.Kind kind;
        private final ConfigValues.Builder values;

        private Builder(int members, Ring.Kind kind, ConfigValues.Builder values) {
            if (members < 1 || members > MAX_MEMBERS) {
                throw new IllegalArgumentException("members must be 1.." + MAX_MEMBERS + ", got " + members);
            }
            this.members = members;
            this.kind = Objects.requireNonNull(kind, "kind");
            this.values = values;
        }

        /**
         * Sets {@code key} (one of {@link RingKeys#TABLE}'s) to {@code value}.
         *
         * @throws IllegalArgumentException naming the key and the value, if the key's check refuses it
         */
        public <T> Builder set(ConfigKey<T> key, T value) {
            values.set(key, value);
            return this;
        }

        /**
         * Sets every {@code ring.*} / {@code mring.*} key {@code settings} hold ({@link RingKeys#config}
         * adds the cluster-file checks).
         *
         * @throws IllegalArgumentException naming the settings' source and the first faulty key
         */
        public Builder settings(Settings settings) {
            values.setAll(settings);
            return this;
        }

        /** {@code ring.member.ids}, default 0 (the cluster's n): ids a membership change may add are below it. */
        public Builder memberIds(int ids) { return set(RingKeys.MEMBER_IDS, ids); }

        /** {@code ring.window}, default 32. */
        public Builder window(int n) { return set(RingKeys.WINDOW, n); }

        /** {@code ring.batch.bytes}, default 8000. */
        public Builder batchBytes(int n) { return set(RingKeys.BATCH_BYTES, n); }

        /** {@code ring.batch.timeout.ms}, default 1 ms. */
        public Builder batchTimeout(Duration d) { return set(RingKeys.BATCH_TIMEOUT, d); }

        /** {@code ring.eager.below}, default 2 (capped at the window). */
        public Builder eagerBelow(int n) { return set(RingKeys.EAGER_BELOW, n); }

        /** {@code ring.packet.bytes}, default 32768, at least 512. */
        public Builder packetBytes(int n) { return set(RingKeys.PACKET_BYTES, n); }

        /** {@code ring.heartbeat.ms}, default 50 ms. */
        public Builder heartbeat(Duration d) { return set(RingKeys.HEARTBEAT, d); }

        /** {@code ring.suspect.ms}, default 500 ms; must exceed the heartbeat. */
        public Builder suspect(Duration d) { return set(RingKeys.SUSPECT, d); }

        /** {@code ring.retransmit.ms}, default 100 ms; must be below the stall time-out. */
        public Builder retransmit(Duration d) { return set(RingKeys.RETRANSMIT, d); }

        /** {@code ring.catchup.ms}, default 100 ms. */
        public Builder catchUp(Duration d) { return set(RingKeys.CATCH_UP, d); }

        /** {@code ring.catchup.max.instances}, default 256. */
        public Builder catchUpMaxInstances(int n) { return set(RingKeys.CATCH_UP_MAX_INSTANCES, n); }

        /** {@code ring.catchup.max.bytes}, default 1 MiB. */
        public Builder catchUpMaxBytes(int n) { return set(RingKeys.CATCH_UP_MAX_BYTES, n); }

        /** {@code ring.stall.ms}, default 1000 ms. */
        public Builder stall(Duration d) { return set(RingKeys.STALL, d); }

        /** {@code ring.rejoin.backoff.ms}, default 1000 ms. */
        public Builder rejoinBackoff(Duration d) { return set(RingKeys.REJOIN_BACKOFF, d); }

        /** {@code ring.rejoin.lag}, default 64 instances. */
        public Builder rejoinLag(int n) { return set(RingKeys.REJOIN_LAG, n); }

        /** {@code ring.max.backlog}, default 1024, below {@value RingConfig#MAX_BACKLOG_LIMIT}. */
        public Builder maxBacklog(int n) { return set(RingKeys.MAX_BACKLOG, n); }

        /** {@code ring.max.pending}, default 64. */
        public Builder maxPending(int n) { return set(RingKeys.MAX_PENDING, n); }

        /** {@code ring.proposal.retry.ms}, default 1000 ms. */
        public Builder proposalRetry(Duration d) { return set(RingKeys.PROPOSAL_RETRY, d); }

        /** {@code ring.restart.hold.ms}, default 2000 ms. */
        public Builder restartHold(Duration d) { return set(RingKeys.RESTART_HOLD, d); }

        /** {@code ring.lambda}: λ in logical instances per second, default 0 (off); 0..{@value RingConfig#MAX_LAMBDA}. */
        public Builder lambda(long instancesPerSecond) { return set(RingKeys.LAMBDA, instancesPerSecond); }

        /** {@code ring.delta.ms}: Δ, default 5 ms; positive, at most 60 s. */
        public Builder skipInterval(Duration d) { return set(RingKeys.DELTA, d); }

        /** {@code mring.speculation}: on or off, default off. */
        public Builder speculation(boolean on) { return set(RingKeys.MRING_SPECULATION, on ? "on" : "off"); }

        /** {@code mring.group}, default 239.255.80.1. */
        public Builder mringGroup(String group) { return set(RingKeys.MRING_GROUP, group); }

        /** {@code mring.port}, default 7400 (1..65535). */
        public Builder mringPort(int port) { return set(RingKeys.MRING_PORT, port); }

        /** {@code mring.interface}, default 127.0.0.1. */
        public Builder mringInterface(String address) { return set(RingKeys.MRING_INTERFACE, address); }

        /** {@code mring.ttl}, default 1 (0..255). */
        public Builder mringTtl(int ttl) { return set(RingKeys.MRING_TTL, ttl); }

        /** {@code mring.packet.bytes}, default 8192, 512..65507. */
        public Builder mringPacketBytes(int n) { return set(RingKeys.MRING_PACKET_BYTES, n); }

        /** {@code mring.socket.buffer.bytes}, default 4 MiB. */
        public Builder mringSocketBufferBytes(int n) { return set(RingKeys.MRING_SOCKET_BUFFER_BYTES, n); }

        /** {@code mring.window.min}, default 1; at most the window. */
        public Builder mringWindowMin(int n) { return set(RingKeys.MRING_WINDOW_MIN, n); }

        /** {@code mring.retransmit.ms}, default 20 ms. */
        public Builder mringRetransmit(Duration d) { return set(RingKeys.MRING_RETRANSMIT, d); }

        /** {@code mring.retransmit.max.bytes}, default 1 MiB. */
        public Builder mringRetransmitMaxBytes(int n) { return set(RingKeys.MRING_RETRANSMIT_MAX_BYTES, n); }

        /** {@code mring.fc.threshold}, default 256. */
        public Builder mringFcThreshold(int n) { return set(RingKeys.MRING_FC_THRESHOLD, n); }

        /** {@code mring.fc.decrease.ms}, default 10 ms. */
        public Builder mringFcDecrease(Duration d) { return set(RingKeys.MRING_FC_DECREASE, d); }

        /** {@code mring.fc.increase.ms}, default 5 ms. */
        public Builder mringFcIncrease(Duration d) { return set(RingKeys.MRING_FC_INCREASE, d); }

        /** {@code mring.learner.buffer}, default 4096 instances. */
        public Builder mringLearnerBuffer(int n) { return set(RingKeys.MRING_LEARNER_BUFFER, n); }

        /** {@code mring.learner.buffer.bytes}, default 64 MiB. */
        public Builder mringLearnerBufferBytes(long n) { return set(RingKeys.MRING_LEARNER_BUFFER_BYTES, n); }

        /** {@code mring.test.faults}, default "" (no faults; tests and chaos only). */
        public Builder mringTestFaults(String spec) {
            return set(RingKeys.MRING_TEST_FAULTS, Objects.requireNonNull(spec, "mring.test.faults"));
        }
        /**
         * @throws IllegalArgumentException if the values disagree: heartbeat &lt; suspect, retransmit
         *         &lt; stall, {@code mring.window.min} ≤ window, {@code ring.max.backlog} &lt; 4096
         */
        public RingConfig build() {
            Duration heartbeat = values.get(RingKeys.HEARTBEAT);
            Duration suspect = values.get(RingKeys.SUSPECT);
            Duration stall = values.get(RingKeys.STALL);
            Duration retransmit = values.get(RingKeys.RETRANSMIT);
            Duration mringRetransmit = values.get(RingKeys.MRING_RETRANSMIT);
            int window = values.get(RingKeys.WINDOW);
            int mringWindowMin = values.get(RingKeys.MRING_WINDOW_MIN);
            int maxBacklog = values.get(RingKeys.MAX_BACKLOG);
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
                throw new IllegalArgumentException("mring.window.min (" + mringWindowMin + ") must be <= ring.window ("
                        + window + ")");
            }
            if (maxBacklog >= MAX_BACKLOG_LIMIT) {
                throw new IllegalArgumentException("ring.max.backlog (" + maxBacklog + ") must be below " + MAX_BACKLOG_LIMIT
                        + " (the runtime's maxUndelivered)");
            }
            int ids = values.get(RingKeys.MEMBER_IDS);
            if (ids != 0 && ids < members) {
                throw new IllegalArgumentException("ring.member.ids (" + ids + ") must be 0 (fixed members) or at least the "
                        + members + " members");
            }
            // ring.eager.below is capped at the window in the configuration, not in this builder.
            ConfigValues.Builder capped = values.build().toBuilder()
                    .set(RingKeys.EAGER_BELOW, Math.min(values.get(RingKeys.EAGER_BELOW), window));
            return new RingConfig(members, kind, capped.build());
        }
    }
}
