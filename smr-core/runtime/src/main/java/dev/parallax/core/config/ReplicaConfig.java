package dev.parallax.core.config;

import dev.parallax.core.stage.WaitStrategies;
import dev.parallax.core.stage.WaitStrategy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Settings of one replica process that every ordering protocol and executor shares: who it is, who
 * its peers are, where it keeps durable state, and the sizes of the stage pipeline. Protocol
 * parameters (window, batch size, timeouts) live in each protocol's own configuration.
 *
 * <p>Immutable and thread-safe; built with {@link #builder()}. Defaults are the paper's where it
 * gives one (seed 000 §V-E: RequestQueue 1000, ProposalQueue 20).
 */
public final class ReplicaConfig {
    /** Default {@link Builder#requestQueueCapacity}: 1000 requests (seed 000 §V-E). */
    public static final int DEFAULT_REQUEST_QUEUE = 1000;
    /** Default {@link Builder#proposalQueueCapacity}: 20 batches (seed 000 §V-E). */
    public static final int DEFAULT_PROPOSAL_QUEUE = 20;
    /** Default {@link Builder#decisionQueueCapacity}: 256 decided batches. */
    public static final int DEFAULT_DECISION_QUEUE = 256;
    /** Default {@link Builder#sendQueueCapacity}: 4096 messages per peer. */
    public static final int DEFAULT_SEND_QUEUE = 4096;
    /** Default {@link Builder#maxFrameBytes}: 16 MiB. */
    public static final int DEFAULT_MAX_FRAME = 16 << 20;
    /** Default {@link Builder#maxCommandBytes}: 1 MiB. */
    public static final int DEFAULT_MAX_COMMAND = 1 << 20;
    /** Default {@link Builder#clientWriteBufferWaterMarks} low mark: 256 KiB. */
    public static final int DEFAULT_CLIENT_WRITE_LOW = 256 << 10;
    /** Default {@link Builder#clientWriteBufferWaterMarks} high mark: 1 MiB. */
    public static final int DEFAULT_CLIENT_WRITE_HIGH = 1 << 20;
    /** Default {@link Builder#partialFrameTimeout}: 30 seconds. */
    public static final java.time.Duration DEFAULT_PARTIAL_FRAME_TIMEOUT = java.time.Duration.ofSeconds(30);
    /** Default {@link Builder#snapshotLogBytes}: 256 MiB of decided batches between snapshots. */
    public static final long DEFAULT_SNAPSHOT_LOG_BYTES = 256L << 20;
    /** Default {@link Builder#snapshotTransferTimeout}: 30 s without a byte from the peer. */
    public static final java.time.Duration DEFAULT_SNAPSHOT_TRANSFER_TIMEOUT = java.time.Duration.ofSeconds(30);
    /** Default {@link Builder#snapshotMaxBytes}: 16 GiB. */
    public static final long DEFAULT_SNAPSHOT_MAX_BYTES = 16L << 30;

    private final int id;
    private final ClusterMembers members;
    private final ClusterMembers clientMembers;
    private final Path dataDirectory;
    private final int clientIoThreads;
    private final int replicaIoThreads;
    private final int requestQueueCapacity;
    private final int proposalQueueCapacity;
    private final int decisionQueueCapacity;
    private final int sendQueueCapacity;
    private final int maxFrameBytes;
    private final int maxCommandBytes;
    private final WaitMode waitMode;
    private final dev.parallax.core.stage.ThreadPlacement threads;
    private final dev.parallax.core.spi.SyncPolicy logSync;
    private final int clientWriteLowBytes;
    private final int clientWriteHighBytes;
    private final java.time.Duration partialFrameTimeout;
    private final long snapshotLogBytes;
    private final java.time.Duration snapshotTransferTimeout;
    private final long snapshotMaxBytes;
    private final TlsConfig tls;

    private ReplicaConfig(Builder b) {
        this.id = b.id;
        this.members = b.members;
        this.clientMembers = b.clientMembers;
        this.dataDirectory = b.dataDirectory;
        this.clientIoThreads = b.clientIoThreads;
        this.replicaIoThreads = b.replicaIoThreads;
        this.requestQueueCapacity = b.requestQueueCapacity;
        this.proposalQueueCapacity = b.proposalQueueCapacity;
        this.decisionQueueCapacity = b.decisionQueueCapacity;
        this.sendQueueCapacity = b.sendQueueCapacity;
        this.maxFrameBytes = b.maxFrameBytes;
        this.maxCommandBytes = b.maxCommandBytes;
        this.waitMode = b.waitMode;
        this.threads = b.threads;
        this.logSync = b.logSync;
        this.clientWriteLowBytes = b.clientWriteLowBytes;
        this.clientWriteHighBytes = b.clientWriteHighBytes;
        this.partialFrameTimeout = b.partialFrameTimeout;
        this.snapshotLogBytes = b.snapshotLogBytes;
        this.snapshotTransferTimeout = b.snapshotTransferTimeout;
        this.snapshotMaxBytes = b.snapshotMaxBytes;
        this.tls = b.tls;
    }

    /** A builder with every default set; {@code id} and {@code members} are required. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder initialised from this configuration. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.id = id;
        b.members = members;
        b.clientMembers = clientMembers;
        b.dataDirectory = dataDirectory;
        b.clientIoThreads = clientIoThreads;
        b.replicaIoThreads = replicaIoThreads;
        b.requestQueueCapacity = requestQueueCapacity;
        b.proposalQueueCapacity = proposalQueueCapacity;
        b.decisionQueueCapacity = decisionQueueCapacity;
        b.sendQueueCapacity = sendQueueCapacity;
        b.maxFrameBytes = maxFrameBytes;
        b.maxCommandBytes = maxCommandBytes;
        b.waitMode = waitMode;
        b.threads = threads;
        b.logSync = logSync;
        b.clientWriteLowBytes = clientWriteLowBytes;
        b.clientWriteHighBytes = clientWriteHighBytes;
        b.partialFrameTimeout = partialFrameTimeout;
        b.snapshotLogBytes = snapshotLogBytes;
        b.snapshotTransferTimeout = snapshotTransferTimeout;
        b.snapshotMaxBytes = snapshotMaxBytes;
        b.tls = tls;
        return b;
    }

    public int id() {
        return id;
    }

    public ClusterMembers members() {
        return members;
    }

    /**
     * Where each replica serves clients ({@code id=host:port}, same ids as {@link #members()}).
     * Defaults to each member's host with its replica port + 1000.
     */
    public ClusterMembers clientMembers() {
        return clientMembers;
    }

    /** This replica's own member entry. */
    public Member self() {
        return members.member(id);
    }

    /** Where durable state lives; empty means in-memory only (no crash recovery). */
    public Optional<Path> dataDirectory() {
        return Optional.ofNullable(dataDirectory);
    }

    public int clientIoThreads() {
        return clientIoThreads;
    }

    /**
     * Netty event loops reading (and writing) peer connections: by default one per peer, so with
     * one inbound connection per peer each peer's frames are read by a thread of its own (seed
     * 000 §III's per-peer reader; Netty assigns new connections to loops round-robin).
     */
    public int replicaIoThreads() {
        return replicaIoThreads > 0 ? replicaIoThreads : Math.max(1, members.size() - 1);
    }

    public int requestQueueCapacity() {
        return requestQueueCapacity;
    }

    public int proposalQueueCapacity() {
        return proposalQueueCapacity;
    }

    public int decisionQueueCapacity() {
        return decisionQueueCapacity;
    }

    public int sendQueueCapacity() {
        return sendQueueCapacity;
    }

    public int maxFrameBytes() {
        return maxFrameBytes;
    }

    public int maxCommandBytes() {
        return maxCommandBytes;
    }

    /**
     * How pipeline stages are placed on threads, as configured ({@link dev.parallax.core.stage.ThreadPlacement#AUTO}
     * by default); the replica resolves {@code AUTO} by its core count when it starts.
     */
    public dev.parallax.core.stage.ThreadPlacement threads() {
        return threads;
    }

    public WaitMode waitMode() {
        return waitMode;
    }

    /** When the acceptor log forces its records to the device (with a data directory). */
    public dev.parallax.core.spi.SyncPolicy logSync() {
        return logSync;
    }

    /**
     * Pending reply bytes of one client connection at which the replica stops reading that
     * connection's requests (the high mark) and resumes (the low mark).
     */
    public int clientWriteHighBytes() {
        return clientWriteHighBytes;
    }

    /** See {@link #clientWriteHighBytes()}. */
    public int clientWriteLowBytes() {
        return clientWriteLowBytes;
    }

    /** How long a frame may stay incomplete on a connection before the connection is closed. */
    public java.time.Duration partialFrameTimeout() {
        return partialFrameTimeout;
    }

    /**
     * Decided bytes (batch payloads) since the last snapshot that trigger the next one, whichever
     * comes first with the replica's instance count (with a data directory).
     */
    public long snapshotLogBytes() {
        return snapshotLogBytes;
    }

    /** How long a snapshot fetch may go without a byte from the peer before it is abandoned. */
    public java.time.Duration snapshotTransferTimeout() {
        return snapshotTransferTimeout;
    }

    /** Largest snapshot file this replica accepts from a peer. */
    public long snapshotMaxBytes() {
        return snapshotMaxBytes;
    }

    /** TLS on the replica port and the client port; {@link TlsConfig#OFF} by default. */
    public TlsConfig tls() {
        return tls;
    }

    @Override
    public String toString() {
        return "ReplicaConfig{id=" + id + ", members=" + members + ", clients=" + clientMembers
                + ", dataDirectory=" + dataDirectory
                + ", clientIoThreads=" + clientIoThreads + ", replicaIoThreads=" + replicaIoThreads() + ", requestQueue=" + requestQueueCapacity
                + ", proposalQueue=" + proposalQueueCapacity + ", decisionQueue=" + decisionQueueCapacity
                + ", sendQueue=" + sendQueueCapacity + ", maxFrameBytes=" + maxFrameBytes
                + ", maxCommandBytes=" + maxCommandBytes + ", waitMode=" + waitMode + ", threads=" + threads + ", logSync=" + logSync
                + ", clientWriteWaterMarks=" + clientWriteLowBytes + "/" + clientWriteHighBytes
                + ", partialFrameTimeout=" + partialFrameTimeout
                + ", snapshotLogBytes=" + snapshotLogBytes + ", snapshotTransferTimeout=" + snapshotTransferTimeout
                + ", snapshotMaxBytes=" + snapshotMaxBytes + ", tls=" + tls + "}";
    }

    /** How idle stage threads wait for work. */
    public enum WaitMode {
        /** Spin on the CPU: lowest latency, burns a core per stage; only for machines with cores to spare. */
        BUSY_SPIN(WaitStrategies.BUSY_SPIN),
        /** Spin briefly, yield, then park with growing back-off: the default, low latency and cheap when idle. */
        YIELD_PARK(WaitStrategies.YIELD_PARK),
        /** Park at once: least CPU, most latency. */
        PARK(WaitStrategies.PARK);

        /** Longest park of an idle stage thread in {@link #YIELD_PARK} mode. */
        public static final long MAX_IDLE_PARK_MILLIS = 10;

        private final String strategyName;

        WaitMode(String strategyName) {
            this.strategyName = strategyName;
        }

        /**
         * The stage runtime's wait strategy for this mode. Yield-park parks for at most
         * {@link #MAX_IDLE_PARK_MILLIS} ms: producers wake a parked stage at once through its
         * queue, so the cap only bounds how late timers (ticks, batch time-outs) fire on an idle
         * replica, while keeping an idle replica's CPU use low.
         */
        public WaitStrategy.Factory strategy() {
            if (this == YIELD_PARK) {
                return WaitStrategies.yieldPark(100, 10, 1_000, MAX_IDLE_PARK_MILLIS * 1_000_000L);
            }
            return WaitStrategies.parse(strategyName);
        }
    }

    /** Mutable builder; not thread-safe. Setters validate their argument at once. */
    public static final class Builder {
        private int id = -1;
        private ClusterMembers members;
        private ClusterMembers clientMembers;
        private Path dataDirectory;
        private int clientIoThreads = defaultClientIoThreads(Runtime.getRuntime().availableProcessors());
        private int replicaIoThreads;
        private int requestQueueCapacity = DEFAULT_REQUEST_QUEUE;
        private int proposalQueueCapacity = DEFAULT_PROPOSAL_QUEUE;
        private int decisionQueueCapacity = DEFAULT_DECISION_QUEUE;
        private int sendQueueCapacity = DEFAULT_SEND_QUEUE;
        private int maxFrameBytes = DEFAULT_MAX_FRAME;
        private int maxCommandBytes = DEFAULT_MAX_COMMAND;
        private WaitMode waitMode = WaitMode.YIELD_PARK;
        private dev.parallax.core.stage.ThreadPlacement threads = dev.parallax.core.stage.ThreadPlacement.jvmDefault();
        private dev.parallax.core.spi.SyncPolicy logSync = dev.parallax.core.spi.SyncPolicy.EVERY_BATCH;
        private int clientWriteLowBytes = DEFAULT_CLIENT_WRITE_LOW;
        private int clientWriteHighBytes = DEFAULT_CLIENT_WRITE_HIGH;
        private java.time.Duration partialFrameTimeout = DEFAULT_PARTIAL_FRAME_TIMEOUT;
        private long snapshotLogBytes = DEFAULT_SNAPSHOT_LOG_BYTES;
        private java.time.Duration snapshotTransferTimeout = DEFAULT_SNAPSHOT_TRANSFER_TIMEOUT;
        private long snapshotMaxBytes = DEFAULT_SNAPSHOT_MAX_BYTES;
        private TlsConfig tls = TlsConfig.OFF;

        private Builder() {
        }

        /**
         * TLS on this replica's ports: mutual TLS between replicas, TLS for
         * clients; default {@link TlsConfig#OFF}.
         */
        public Builder tls(TlsConfig tls) {
            this.tls = Objects.requireNonNull(tls, "tls");
            return this;
        }

        /**
         * Write-buffer water marks of client connections; defaults 256 KiB and 1 MiB. When a
         * client does not read its replies and more than {@code highBytes} of them wait in the
         * replica, the replica stops reading that client's requests until fewer than
         * {@code lowBytes} wait: a client that never reads costs a bounded amount of memory.
         *
         * @throws IllegalArgumentException unless {@code 0 < lowBytes <= highBytes}
         */
        public Builder clientWriteBufferWaterMarks(int lowBytes, int highBytes) {
            if (lowBytes <= 0 || highBytes < lowBytes) {
                throw new IllegalArgumentException("water marks must satisfy 0 < low <= high, got " + lowBytes + "/" + highBytes);
            }
            this.clientWriteLowBytes = lowBytes;
            this.clientWriteHighBytes = highBytes;
            return this;
        }

        /**
         * Take a snapshot once this many bytes of decided batches accumulated since the last one
         * (or the instance count is reached, whichever comes first); default 256 MiB.
         */
        public Builder snapshotLogBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("snapshotLogBytes must be >= 1, got " + bytes);
            }
            this.snapshotLogBytes = bytes;
            return this;
        }

        /**
         * How long a frame may stay incomplete on any connection (client or replica port) before
         * the connection is closed; default 30 s. Idle connections without a partial frame are
         * never closed.
         *
         * @throws IllegalArgumentException unless positive
         */
        public Builder partialFrameTimeout(java.time.Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("partialFrameTimeout must be positive, got " + timeout);
            }
            this.partialFrameTimeout = timeout;
            return this;
        }

        /**
         * Abandon a snapshot fetch after this long without a byte from the peer (a later fetch
         * retries); default 30 s.
         */
        public Builder snapshotTransferTimeout(java.time.Duration timeout) {
            Objects.requireNonNull(timeout, "snapshotTransferTimeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("snapshotTransferTimeout must be positive, got " + timeout);
            }
            this.snapshotTransferTimeout = timeout;
            return this;
        }

        /** Refuse snapshots from peers larger than this many bytes; default 16 GiB. */
        public Builder snapshotMaxBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("snapshotMaxBytes must be >= 1, got " + bytes);
            }
            this.snapshotMaxBytes = bytes;
            return this;
        }

        /**
         * When the acceptor log forces records to the device; default {@code EVERY_BATCH} (one
         * fsync per protocol batch: survives power loss). See docs/operations.md for the others.
         */
        public Builder logSync(dev.parallax.core.spi.SyncPolicy policy) {
            this.logSync = Objects.requireNonNull(policy, "logSync");
            return this;
        }

        /**
         * Default ClientIO thread count for a machine with {@code cores} cores: half the cores,
         * between 1 and 4 (seed 000 §VI-C: 3–6 threads were best on 24 cores and more than 8 hurt;
         * the other stages need the remaining cores).
         */
        public static int defaultClientIoThreads(int cores) {
            return Math.max(1, Math.min(4, cores / 2));
        }

        /** Required: this replica's id, a member of {@link #members}. */
        public Builder id(int id) {
            if (id < 0) {
                throw new IllegalArgumentException("replica id must be >= 0, got " + id);
            }
            this.id = id;
            return this;
        }

        /** Required: the cluster. */
        public Builder members(ClusterMembers members) {
            this.members = Objects.requireNonNull(members, "members");
            return this;
        }

        /** Client endpoints, one per member with the same ids; default replica port + 1000. */
        public Builder clientMembers(ClusterMembers clientMembers) {
            this.clientMembers = clientMembers;
            return this;
        }

        /** Durable state directory; {@code null} (default) keeps everything in memory. */
        public Builder dataDirectory(Path dataDirectory) {
            this.dataDirectory = dataDirectory;
            return this;
        }

        /** Netty event loops for peer connections; default one per peer (see {@link ReplicaConfig#replicaIoThreads()}). */
        public Builder replicaIoThreads(int n) {
            this.replicaIoThreads = positive(n, "replicaIoThreads");
            return this;
        }

        /** Netty event loops for client connections; default {@link #defaultClientIoThreads(int)}. */
        public Builder clientIoThreads(int n) {
            this.clientIoThreads = positive(n, "clientIoThreads");
            return this;
        }

        /** Requests waiting for the Batcher; default {@value ReplicaConfig#DEFAULT_REQUEST_QUEUE}. */
        public Builder requestQueueCapacity(int n) {
            this.requestQueueCapacity = positive(n, "requestQueueCapacity");
            return this;
        }

        /** Batches waiting to be proposed; default {@value ReplicaConfig#DEFAULT_PROPOSAL_QUEUE}. */
        public Builder proposalQueueCapacity(int n) {
            this.proposalQueueCapacity = positive(n, "proposalQueueCapacity");
            return this;
        }

        /** Decided batches waiting for execution; default {@value ReplicaConfig#DEFAULT_DECISION_QUEUE}. */
        public Builder decisionQueueCapacity(int n) {
            this.decisionQueueCapacity = positive(n, "decisionQueueCapacity");
            return this;
        }

        /** Messages waiting per peer sender; default {@value ReplicaConfig#DEFAULT_SEND_QUEUE}. */
        public Builder sendQueueCapacity(int n) {
            this.sendQueueCapacity = positive(n, "sendQueueCapacity");
            return this;
        }

        /** Largest frame accepted on any connection; default 16 MiB. */
        public Builder maxFrameBytes(int n) {
            this.maxFrameBytes = positive(n, "maxFrameBytes");
            return this;
        }

        /** Largest client command; default 1 MiB. Must not exceed {@link #maxFrameBytes}. */
        public Builder maxCommandBytes(int n) {
            this.maxCommandBytes = positive(n, "maxCommandBytes");
            return this;
        }

        /** How idle stage threads wait; default {@link WaitMode#YIELD_PARK}. */
        public Builder waitMode(WaitMode mode) {
            this.waitMode = Objects.requireNonNull(mode, "waitMode");
            return this;
        }

        /** How pipeline stages are placed on threads; default {@link dev.parallax.core.stage.ThreadPlacement#jvmDefault()} ({@code AUTO} unless {@code -Dparallax.threads} says otherwise). */
        public Builder threads(dev.parallax.core.stage.ThreadPlacement placement) {
            this.threads = Objects.requireNonNull(placement, "threads");
            return this;
        }

        /**
         * @throws IllegalArgumentException if a required value is missing or the values disagree
         */
        public ReplicaConfig build() {
            if (members == null) {
                throw new IllegalArgumentException("members are required");
            }
            if (id < 0) {
                throw new IllegalArgumentException("id is required");
            }
            if (id >= members.size()) {
                throw new IllegalArgumentException("id " + id + " is not a member of " + members);
            }
            if (clientMembers == null) {
                List<Member> derived = new ArrayList<>();
                for (Member m : members.members()) {
                    if (m.port() + 1000 > 65535) {
                        throw new IllegalArgumentException("member " + m.id() + ": cannot derive a client port from "
                                + m.port() + "; set clientMembers");
                    }
                    derived.add(new Member(m.id(), m.host(), m.port() + 1000));
                }
                clientMembers = ClusterMembers.of(derived);
            } else if (clientMembers.size() != members.size()) {
                throw new IllegalArgumentException("clientMembers has " + clientMembers.size() + " entries for "
                        + members.size() + " members");
            }
            if (maxCommandBytes > maxFrameBytes) {
                throw new IllegalArgumentException("maxCommandBytes (" + maxCommandBytes
                        + ") exceeds maxFrameBytes (" + maxFrameBytes + ")");
            }
            return new ReplicaConfig(this);
        }

        private static int positive(int n, String what) {
            if (n <= 0) {
                throw new IllegalArgumentException(what + " must be > 0, got " + n);
            }
            return n;
        }
    }
}
