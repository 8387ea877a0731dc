package dev.parallax.core.config;

import dev.parallax.core.spi.SyncPolicy;
import dev.parallax.core.stage.ThreadPlacement;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Settings of one replica process that every ordering protocol and executor shares: who it is, who
 * its peers are, where it keeps durable state, and the sizes of the stage pipeline. Protocol
 * parameters (window, batch size, timeouts) live in each protocol's own configuration.
 *
 * <p>Each scalar parameter (queue capacities, frame and command limits, water marks, timeouts,
 * snapshot thresholds, I/O threads, wait mode, log sync) is a key of {@link ReplicaKeys} (name,
 * type, default, check, documentation): this class holds their values, its builder sets keys and
 * its getters read them, and a cluster file sets the same keys by name. The structured values
 * (id, members, client endpoints, data directory, thread placement, TLS) are typed fields.
 * Defaults are the paper's where it gives one (seed 000 §V-E: RequestQueue 1000, ProposalQueue 20).
 *
 * <p>Immutable and thread-safe; built with {@link #builder()}.
 */
public final class ReplicaConfig {
    /**
     * Default {@link Builder#maxFrameBytes} ({@link ReplicaKeys#MAX_FRAME_BYTES}): 16 MiB; a constant
     * because the protocols bound their catch-up replies by it.
     */
    public static final int DEFAULT_MAX_FRAME = 16 << 20;
    /** Default {@link Builder#partialFrameTimeout}: {@link ReplicaKeys#PARTIAL_FRAME_TIMEOUT}'s, 30 s. */
    public static final Duration DEFAULT_PARTIAL_FRAME_TIMEOUT = ReplicaKeys.PARTIAL_FRAME_TIMEOUT.defaultValue();
    /** Default {@link Builder#snapshotLogBytes}: {@link ReplicaKeys#SNAPSHOT_LOG_BYTES}'s, 256 MiB. */
    public static final long DEFAULT_SNAPSHOT_LOG_BYTES = ReplicaKeys.SNAPSHOT_LOG_BYTES.defaultValue();
    /** Default {@link Builder#snapshotTransferTimeout}: {@link ReplicaKeys#SNAPSHOT_TRANSFER_TIMEOUT}'s, 30 s. */
    public static final Duration DEFAULT_SNAPSHOT_TRANSFER_TIMEOUT = ReplicaKeys.SNAPSHOT_TRANSFER_TIMEOUT.defaultValue();
    /** Default {@link Builder#snapshotMaxBytes}: {@link ReplicaKeys#SNAPSHOT_MAX_BYTES}'s, 16 GiB. */
    public static final long DEFAULT_SNAPSHOT_MAX_BYTES = ReplicaKeys.SNAPSHOT_MAX_BYTES.defaultValue();

    private final int id;
    private final ClusterMembers members;
    /** This replica's address when it is not one of {@link #members} (a joining replica), else {@code null}. */
    private final Member joinAddress;
    private final ClusterMembers clientMembers;
    private final Path dataDirectory;
    private final ThreadPlacement threads;
    private final TlsConfig tls;
    private final ClusterSecret clusterSecret;
    private final ConfigValues values;

    private ReplicaConfig(Builder b, ClusterMembers clientMembers) {
        this.id = b.id;
        this.members = b.members;
        this.joinAddress = b.joinAddress();
        this.clientMembers = clientMembers;
        this.dataDirectory = b.dataDirectory;
        this.threads = b.threads;
        this.tls = b.tls;
        this.clusterSecret = b.clusterSecret;
        this.values = b.values.build();
    }

    /** A builder with every default set; {@code id} and {@code members} are required. */
    public static Builder builder() {
        return new Builder(ConfigValues.builder(ReplicaKeys.CONFIG)
                .set(ReplicaKeys.CLIENT_IO_THREADS, Builder.defaultClientIoThreads(Runtime.getRuntime().availableProcessors())));
    }

    /** A builder initialised from this configuration. */
    public Builder toBuilder() {
        Builder b = new Builder(values.toBuilder());
        b.id = id;
        b.members = members;
        if (joinAddress != null) {
            b.joinAddress(joinAddress.host(), joinAddress.port());
        }
        b.clientMembers = clientMembers;
        b.dataDirectory = dataDirectory;
        b.threads = threads;
        b.tls = tls;
        b.clusterSecret = clusterSecret;
        return b;
    }

    public int id() {
        return id;
    }

    /**
     * The cluster file's replicas: the group's initial membership. A joining replica is not in it
     * ({@link #isMember()}); membership changes decided later do not change it.
     */
    public ClusterMembers members() {
        return members;
    }

    /** Whether this replica is one of {@link #members()}; {@code false} for a joining replica. */
    public boolean isMember() {
        return id < members.size();
    }

    /**
     * Where this replica listens when it joins the group: it is not one of {@link #members()}, and
     * a membership change adds it, at this address, while it runs. Empty for a member.
     */
    public Optional<Member> joinAddress() {
        return Optional.ofNullable(joinAddress);
    }

    /**
     * Where each replica serves clients ({@code id=host:port}, same ids as {@link #members()}).
     * Defaults to each member's host with its replica port + 1000.
     */
    public ClusterMembers clientMembers() {
        return clientMembers;
    }

    /** This replica's own member entry: its entry in {@link #members()}, or its {@link #joinAddress()}. */
    public Member self() {
        return joinAddress != null ? joinAddress : members.member(id);
    }

    /**
     * Where this replica serves clients: its entry in {@link #clientMembers()}, or for a joining
     * replica its join address with the port + 1000.
     */
    public Member clientAddress() {
        return joinAddress != null ? joinedClientAddress(joinAddress) : clientMembers.member(id);
    }

    /**
     * Where a replica that joined at {@code replicaAddress} (its {@link #joinAddress()}, the address
     * a membership change gave it) serves clients and snapshots: the same host, port + 1000.
     */
    public static Member joinedClientAddress(Member replicaAddress) {
        return new Member(replicaAddress.id(), replicaAddress.host(), replicaAddress.port() + 1000);
    }

    /** Where durable state lives; empty means in-memory only (no crash recovery). */
    public Optional<Path> dataDirectory() {
        return Optional.ofNullable(dataDirectory);
    }

    /** Netty event loops for client connections ({@code client.io.threads}). */
    public int clientIoThreads() {
        return values.get(ReplicaKeys.CLIENT_IO_THREADS);
    }

    /**
     * Netty event loops reading (and writing) peer connections ({@code replica.io.threads}): by
     * default one per peer, so with one inbound connection per peer each peer's frames are read by
     * a thread of its own (seed 000 §III's per-peer reader; Netty assigns new connections to loops
     * round-robin).
     */
    public int replicaIoThreads() {
        Integer n = values.get(ReplicaKeys.REPLICA_IO_THREADS);
        return n != null ? n : Math.max(1, members.size() - 1);
    }

    /** {@code request.queue.capacity}. */
    public int requestQueueCapacity() {
        return values.get(ReplicaKeys.REQUEST_QUEUE_CAPACITY);
    }

    /** {@code proposal.queue.capacity}. */
    public int proposalQueueCapacity() {
        return values.get(ReplicaKeys.PROPOSAL_QUEUE_CAPACITY);
    }

    /** {@code decision.queue.capacity}. */
    public int decisionQueueCapacity() {
        return values.get(ReplicaKeys.DECISION_QUEUE_CAPACITY);
    }

    /** {@code send.queue.capacity}. */
    public int sendQueueCapacity() {
        return values.get(ReplicaKeys.SEND_QUEUE_CAPACITY);
    }

    /** {@code max.frame.bytes}. */
    public int maxFrameBytes() {
        return values.get(ReplicaKeys.MAX_FRAME_BYTES);
    }

    /** {@code max.command.bytes}. */
    public int maxCommandBytes() {
        return values.get(ReplicaKeys.MAX_COMMAND_BYTES);
    }

    /**
     * How pipeline stages are placed on threads, as configured ({@link ThreadPlacement#AUTO}
     * by default); the replica resolves {@code AUTO} by its core count when it starts.
     */
    public ThreadPlacement threads() {
        return threads;
    }

    /** How idle stage threads wait ({@code wait}). */
    public WaitMode waitMode() {
        return fromConfigName(WaitMode.class, values.get(ReplicaKeys.WAIT));
    }

    /** When the acceptor log forces its records to the device, with a data directory ({@code log.sync}). */
    public SyncPolicy logSync() {
        return fromConfigName(SyncPolicy.class, values.get(ReplicaKeys.LOG_SYNC));
    }

    /**
     * Pending reply bytes of one client connection at which the replica stops reading that
     * connection's requests ({@code client.write.high.bytes}); it resumes below
     * {@link #clientWriteLowBytes()}.
     */
    public int clientWriteHighBytes() {
        return values.get(ReplicaKeys.CLIENT_WRITE_HIGH_BYTES);
    }

    /** See {@link #clientWriteHighBytes()} ({@code client.write.low.bytes}). */
    public int clientWriteLowBytes() {
        return values.get(ReplicaKeys.CLIENT_WRITE_LOW_BYTES);
    }

    /** Connections the client port keeps open at once; more are refused ({@code client.max.connections}). */
    public int clientMaxConnections() {
        return values.get(ReplicaKeys.CLIENT_MAX_CONNECTIONS);
    }

    /** How long a frame may stay incomplete on a connection before the connection is closed ({@code partial.frame.timeout.ms}). */
    public Duration partialFrameTimeout() {
        return values.get(ReplicaKeys.PARTIAL_FRAME_TIMEOUT);
    }

    /**
     * Decided bytes (batch payloads) since the last snapshot that trigger the next one, whichever
     * comes first with the replica's instance count, with a data directory ({@code snapshot.log.bytes}).
     */
    public long snapshotLogBytes() {
        return values.get(ReplicaKeys.SNAPSHOT_LOG_BYTES);
    }

    /** How long a snapshot fetch may go without a byte from the peer before it is abandoned ({@code snapshot.transfer.timeout.ms}). */
    public Duration snapshotTransferTimeout() {
        return values.get(ReplicaKeys.SNAPSHOT_TRANSFER_TIMEOUT);
    }

    /** Largest snapshot file this replica accepts from a peer ({@code snapshot.max.bytes}). */
    public long snapshotMaxBytes() {
        return values.get(ReplicaKeys.SNAPSHOT_MAX_BYTES);
    }

    /** TLS on the replica port and the client port; {@link TlsConfig#OFF} by default. */
    public TlsConfig tls() {
        return tls;
    }

    /**
     * The cluster secret ({@code cluster.secret}), the key of the datagram group's authentication;
     * empty by default.
     */
    public Optional<ClusterSecret> clusterSecret() {
        return Optional.ofNullable(clusterSecret);
    }

    /** The typed values, then every key with its value as a cluster file writes it. */
    @Override
    public String toString() {
        return "ReplicaConfig{id=" + id + ", members=" + members + (joinAddress == null ? "" : ", join=" + joinAddress) + ", clients=" + clientMembers + ", dataDirectory=" + dataDirectory
                + ", threads=" + threads + ", tls=" + tls + ", clusterSecret=" + clusterSecret + ", replicaIoThreads=" + replicaIoThreads() + ", " + values + "}";
    }

    /** An enum constant's name in cluster files: {@code EVERY_BATCH} is {@code every-batch}. */
    private static String configName(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The constant {@link #configName} names; the key's check has accepted {@code name} already. */
    private static <E extends Enum<E>> E fromConfigName(Class<E> type, String name) {
        return Enum.valueOf(type, name.toUpperCase(Locale.ROOT).replace('-', '_'));
    }

    /**
     * Mutable builder; not thread-safe. Setters validate their argument at once, and their errors
     * name the parameter's key ({@code request.queue.capacity must be > 0, got 0}); {@link #build()}
     * checks the values that must agree.
     */
    public static final class Builder {
        private int id = -1;
        private ClusterMembers members;
        private String joinHost;
        private int joinPort;
        private ClusterMembers clientMembers;
        private Path dataDirectory;
        private ThreadPlacement threads = ThreadPlacement.jvmDefault();
        private TlsConfig tls = TlsConfig.OFF;
        private ClusterSecret clusterSecret;
        private final ConfigValues.Builder values;

        private Builder(ConfigValues.Builder values) {
            this.values = values;
        }

        /**
         * Default ClientIO thread count for a machine with {@code cores} cores: half the cores,
         * between 1 and 4 (seed 000 §VI-C: 3–6 threads were best on 24 cores and more than 8 hurt;
         * the other stages need the remaining cores).
         */
        public static int defaultClientIoThreads(int cores) {
            return Math.max(1, Math.min(4, cores / 2));
        }

        /**
         * Required: this replica's id, {@code 0..}{@value Member#MAX_ID}: a member of {@link #members},
         * or a joining replica's id outside them (with a {@link #joinAddress}).
         */
        public Builder id(int id) {
            if (id < 0 || id > Member.MAX_ID) {
                throw new IllegalArgumentException("replica id must be 0.." + Member.MAX_ID + ", got " + id);
            }
            this.id = id;
            return this;
        }

        /** Required: the cluster. */
        public Builder members(ClusterMembers members) {
            this.members = Objects.requireNonNull(members, "members");
            return this;
        }

        /**
         * The address a joining replica listens on ({@link ReplicaConfig#joinAddress()}): required
         * when {@link #id} is not one of {@link #members}, refused when it is; {@code null} host
         * clears it. Its client port is {@code port + 1000}.
         */
        public Builder joinAddress(String host, int port) {
            this.joinHost = host;
            this.joinPort = port;
            return this;
        }

        /** The join address as this replica's member entry, or {@code null}; checked by {@link #build()}. */
        private Member joinAddress() {
            return joinHost == null ? null : new Member(id, joinHost, joinPort);
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

        /**
         * How pipeline stages are placed on threads; default {@link ThreadPlacement#jvmDefault()}
         * ({@code AUTO} unless {@code -Dparallax.threads} says otherwise).
         */
        public Builder threads(ThreadPlacement placement) {
            this.threads = Objects.requireNonNull(placement, "threads");
            return this;
        }

        /**
         * TLS on this replica's ports: mutual TLS between replicas, TLS for
         * clients; default {@link TlsConfig#OFF}.
         */
        public Builder tls(TlsConfig tls) {
            this.tls = Objects.requireNonNull(tls, "tls");
            return this;
        }

        /** The cluster secret ({@code cluster.secret}); {@code null} (default): none. */
        public Builder clusterSecret(ClusterSecret secret) {
            this.clusterSecret = secret;
            return this;
        }

        /** Netty event loops for client connections; default {@link #defaultClientIoThreads(int)} of this machine's cores. */
        public Builder clientIoThreads(int n) {
            values.set(ReplicaKeys.CLIENT_IO_THREADS, n);
            return this;
        }

        /** Netty event loops for peer connections; default one per peer (see {@link ReplicaConfig#replicaIoThreads()}). */
        public Builder replicaIoThreads(int n) {
            values.set(ReplicaKeys.REPLICA_IO_THREADS, n);
            return this;
        }

        /** Requests waiting for the Batcher; default 1000 (seed 000 §V-E). */
        public Builder requestQueueCapacity(int n) {
            values.set(ReplicaKeys.REQUEST_QUEUE_CAPACITY, n);
            return this;
        }

        /** Batches waiting to be proposed; default 20 (seed 000 §V-E). */
        public Builder proposalQueueCapacity(int n) {
            values.set(ReplicaKeys.PROPOSAL_QUEUE_CAPACITY, n);
            return this;
        }

        /** Decided batches waiting for execution; default 256. */
        public Builder decisionQueueCapacity(int n) {
            values.set(ReplicaKeys.DECISION_QUEUE_CAPACITY, n);
            return this;
        }

        /** Messages waiting per peer sender; default 4096. */
        public Builder sendQueueCapacity(int n) {
            values.set(ReplicaKeys.SEND_QUEUE_CAPACITY, n);
            return this;
        }

        /** Largest frame accepted on any connection; default {@value ReplicaConfig#DEFAULT_MAX_FRAME} (16 MiB). */
        public Builder maxFrameBytes(int n) {
            values.set(ReplicaKeys.MAX_FRAME_BYTES, n);
            return this;
        }

        /** Largest client command; default 1 MiB. Must not exceed {@link #maxFrameBytes}. */
        public Builder maxCommandBytes(int n) {
            values.set(ReplicaKeys.MAX_COMMAND_BYTES, n);
            return this;
        }

        /** How idle stage threads wait; default {@link WaitMode#AUTO}. */
        public Builder waitMode(WaitMode mode) {
            values.set(ReplicaKeys.WAIT, configName(Objects.requireNonNull(mode, "waitMode")));
            return this;
        }

        /**
         * When the acceptor log forces records to the device; default {@code EVERY_BATCH} (one
         * fsync per protocol batch: survives power loss). See docs/operations.md for the others.
         */
        public Builder logSync(SyncPolicy policy) {
            values.set(ReplicaKeys.LOG_SYNC, configName(Objects.requireNonNull(policy, "logSync")));
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
                throw new IllegalArgumentException(waterMarks(lowBytes, highBytes));
            }
            values.set(ReplicaKeys.CLIENT_WRITE_LOW_BYTES, lowBytes);
            values.set(ReplicaKeys.CLIENT_WRITE_HIGH_BYTES, highBytes);
            return this;
        }

        /**
         * Connections the client port keeps open at once (clients and peers' snapshot fetches);
         * a connection beyond is closed at once, counted ({@code parallax.client.connections.refused})
         * and logged; default 4096.
         *
         * @throws IllegalArgumentException unless positive
         */
        public Builder clientMaxConnections(int connections) {
            values.set(ReplicaKeys.CLIENT_MAX_CONNECTIONS, connections);
            return this;
        }

        /**
         * How long a frame may stay incomplete on any connection (client or replica port) before
         * the connection is closed; default 30 s. Idle connections without a partial frame are
         * never closed.
         *
         * @throws IllegalArgumentException unless positive
         */
        public Builder partialFrameTimeout(Duration timeout) {
            values.set(ReplicaKeys.PARTIAL_FRAME_TIMEOUT, timeout);
            return this;
        }

        /**
         * Take a snapshot once this many bytes of decided batches accumulated since the last one
         * (or the instance count is reached, whichever comes first); default 256 MiB.
         */
        public Builder snapshotLogBytes(long bytes) {
            values.set(ReplicaKeys.SNAPSHOT_LOG_BYTES, bytes);
            return this;
        }

        /**
         * Abandon a snapshot fetch after this long without a byte from the peer (a later fetch
         * retries); default 30 s.
         */
        public Builder snapshotTransferTimeout(Duration timeout) {
            values.set(ReplicaKeys.SNAPSHOT_TRANSFER_TIMEOUT, timeout);
            return this;
        }

        /** Refuse snapshots from peers larger than this many bytes; default 16 GiB. */
        public Builder snapshotMaxBytes(long bytes) {
            values.set(ReplicaKeys.SNAPSHOT_MAX_BYTES, bytes);
            return this;
        }

        /** The values set so far, for the cluster-file reader ({@link ReplicaKeys#replicaConfig}). */
        ConfigValues.Builder values() {
            return values;
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
            JoinAddresses.check(id, members, joinAddress());
            ClusterMembers clients = clientMembers != null ? checkedClientMembers() : derivedClientMembers();
            int command = values.get(ReplicaKeys.MAX_COMMAND_BYTES);
            int frame = values.get(ReplicaKeys.MAX_FRAME_BYTES);
            if (command > frame) {
                throw new IllegalArgumentException(ReplicaKeys.MAX_COMMAND_BYTES.name() + " (" + command + ") exceeds "
                        + ReplicaKeys.MAX_FRAME_BYTES.name() + " (" + frame + "): a command must fit a frame");
            }
            int low = values.get(ReplicaKeys.CLIENT_WRITE_LOW_BYTES);
            int high = values.get(ReplicaKeys.CLIENT_WRITE_HIGH_BYTES);
            if (high < low) {
                throw new IllegalArgumentException(waterMarks(low, high));
            }
            return new ReplicaConfig(this, clients);
        }

        private ClusterMembers checkedClientMembers() {
            if (clientMembers.size() != members.size()) {
                throw new IllegalArgumentException("clientMembers has " + clientMembers.size() + " entries for "
                        + members.size() + " members");
            }
            return clientMembers;
        }

        private ClusterMembers derivedClientMembers() {
            List<Member> derived = new ArrayList<>();
            for (Member m : members.members()) {
                if (m.port() + 1000 > 65535) {
                    throw new IllegalArgumentException("member " + m.id() + ": cannot derive a client port from "
                            + m.port() + "; set clientMembers");
                }
                derived.add(new Member(m.id(), m.host(), m.port() + 1000));
            }
            return ClusterMembers.of(derived);
        }

        private static String waterMarks(int low, int high) {
            return "client write-buffer water marks must satisfy 0 < low <= high (" + ReplicaKeys.CLIENT_WRITE_LOW_BYTES.name()
                    + ", " + ReplicaKeys.CLIENT_WRITE_HIGH_BYTES.name() + "), got " + low + "/" + high;
        }
    }
}
