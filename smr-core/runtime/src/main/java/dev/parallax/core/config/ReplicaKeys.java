package dev.parallax.core.config;

import dev.parallax.core.stage.ThreadPlacement;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The cluster-file keys of the replica itself (membership, storage, snapshots, queues and frames,
 * threads, TLS), each declared once, with the reader that turns them into one replica's
 * {@link ReplicaConfig}: that configuration holds the values of the scalar keys ({@link #CONFIG})
 * and its builder sets them, so the reader copies them in at once. The ordering protocols and
 * executors own their keys in their own modules; docs/operations.md documents every table.
 *
 * <p>Stateless and thread-safe.
 */
public final class ReplicaKeys implements KeyTableProvider {

    /** {@code members}: the cluster, {@code 0=host:port,1=host:port,...} (required). */
    public static final ConfigKey<String> MEMBERS = ConfigKey.text("members", null, false,
            "The replicas and their replica ports, id=host:port separated by commas (required), e.g. "
                    + "0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002.");
    /** {@code clients}: client endpoints, one per member. */
    public static final ConfigKey<String> CLIENTS = ConfigKey.text("clients", null, true,
            "Client endpoints, one per member with the same ids; default: each replica port + 1000.");
    /** {@code data.dir}: durable state. */
    public static final ConfigKey<String> DATA_DIR = ConfigKey.text("data.dir", null, true,
            "Directory of the durable logs and snapshots, one subdirectory replica-<id> per replica; absent: in memory.");
    /** {@code snapshot.every}. */
    public static final ConfigKey<Integer> SNAPSHOT_EVERY = ConfigKey.integer("snapshot.every", null, 1, Integer.MAX_VALUE,
            "Decided instances between snapshots (with data.dir); absent: the replica's default, 10000, or "
                    + "snapshot.log.bytes, whichever comes first.");
    /** {@code snapshot.log.bytes}. */
    public static final ConfigKey<Long> SNAPSHOT_LOG_BYTES = ConfigKey.longInteger("snapshot.log.bytes", 256L << 20, 1,
            Long.MAX_VALUE, "Log bytes written since the last snapshot that trigger the next one.");
    /** {@code snapshot.transfer.timeout.ms}. */
    public static final ConfigKey<Duration> SNAPSHOT_TRANSFER_TIMEOUT = ConfigKey.millis("snapshot.transfer.timeout.ms", 30_000, 1,
            Long.MAX_VALUE, "How long a replica waits for a snapshot it fetches from a peer before trying another.");
    /** {@code snapshot.max.bytes}. */
    public static final ConfigKey<Long> SNAPSHOT_MAX_BYTES = ConfigKey.longInteger("snapshot.max.bytes", 16L << 30, 1,
            Long.MAX_VALUE, "Largest snapshot a replica accepts from a peer.");
    /** {@code log.sync}. */
    public static final ConfigKey<String> LOG_SYNC = ConfigKey.choice("log.sync", "every-batch",
            "When the durable log forces appended records to the device: every-batch (before any message that "
                    + "depends on them leaves), periodic, or none (tests and benchmarks only).",
            "every-batch", "periodic", "none");
    /** {@code client.io.threads}. */
    public static final ConfigKey<Integer> CLIENT_IO_THREADS = ConfigKey.integer("client.io.threads", null, 1, Integer.MAX_VALUE,
            "Netty event loops for client connections; default half the cores, 1..4.");
    /** {@code replica.io.threads}. */
    public static final ConfigKey<Integer> REPLICA_IO_THREADS = ConfigKey.integer("replica.io.threads", null, 1, Integer.MAX_VALUE,
            "Netty event loops for peer connections; default one per peer.");
    /** {@code wait}. */
    public static final ConfigKey<String> WAIT = ConfigKey.choice("wait", "auto",
            "How an idle stage thread waits: busy-spin, yield-park, park or auto (park below 4 cores, yield-park from 4).",
            "busy-spin", "yield-park", "park", "auto");
    /** {@code threads}. */
    public static final ConfigKey<String> THREADS = ConfigKey.choice("threads", "auto",
            "Thread placement of the stages: staged (a thread per stage), compact (one pipeline thread) or auto "
                    + "(staged from 4 cores).", "staged", "compact", "auto");
    /** {@code request.queue.capacity}: RequestQueue. */
    public static final ConfigKey<Integer> REQUEST_QUEUE_CAPACITY = ConfigKey.integer("request.queue.capacity", 1000, 1,
            Integer.MAX_VALUE, "Client requests waiting for the Batcher (seed 000 §V-E: RequestQueue, 1000).");
    /** {@code proposal.queue.capacity}: ProposalQueue. */
    public static final ConfigKey<Integer> PROPOSAL_QUEUE_CAPACITY = ConfigKey.integer("proposal.queue.capacity", 20, 1,
            Integer.MAX_VALUE, "Batches waiting to be proposed (seed 000 §V-E: ProposalQueue, 20).");
    /** {@code decision.queue.capacity}. */
    public static final ConfigKey<Integer> DECISION_QUEUE_CAPACITY = ConfigKey.integer("decision.queue.capacity", 256, 1,
            Integer.MAX_VALUE, "Decided batches waiting for execution.");
    /** {@code send.queue.capacity}. */
    public static final ConfigKey<Integer> SEND_QUEUE_CAPACITY = ConfigKey.integer("send.queue.capacity", 4096, 1,
            Integer.MAX_VALUE, "Messages waiting to be sent, per peer.");
    /** {@code max.frame.bytes}. */
    public static final ConfigKey<Integer> MAX_FRAME_BYTES = ConfigKey.integer("max.frame.bytes", ReplicaConfig.DEFAULT_MAX_FRAME, 1,
            Integer.MAX_VALUE, "Largest frame a replica accepts on any connection, client or replica port; at least twice the "
                    + "protocols' catch-up byte budgets (paxos.catchup.max.bytes, ring.catchup.max.bytes), which is checked.");
    /** {@code max.command.bytes}. */
    public static final ConfigKey<Integer> MAX_COMMAND_BYTES = ConfigKey.integer("max.command.bytes", 1 << 20, 1,
            Integer.MAX_VALUE, "Largest client command a replica accepts; at most max.frame.bytes.");
    /** {@code client.write.low.bytes}: the low write-buffer water mark of client connections. */
    public static final ConfigKey<Integer> CLIENT_WRITE_LOW_BYTES = ConfigKey.integer("client.write.low.bytes", 256 << 10, 1,
            Integer.MAX_VALUE, "Pending reply bytes of a client connection below which the replica reads its requests again; "
                    + "at most client.write.high.bytes.");
    /** {@code client.write.high.bytes}: the high write-buffer water mark of client connections. */
    public static final ConfigKey<Integer> CLIENT_WRITE_HIGH_BYTES = ConfigKey.integer("client.write.high.bytes", 1 << 20, 1,
            Integer.MAX_VALUE, "Pending reply bytes of a client connection above which the replica stops reading its requests, "
                    + "so that a client that never reads costs bounded memory.");
    /** {@code client.max.connections}: the bound on open connections of the client port. */
    public static final ConfigKey<Integer> CLIENT_MAX_CONNECTIONS = ConfigKey.integer("client.max.connections", 4096, 1,
            Integer.MAX_VALUE, "Connections a replica's client port keeps open at once (clients and peers' snapshot fetches); "
                    + "a connection beyond is closed at once, counted and logged.");
    /** {@code partial.frame.timeout.ms}. */
    public static final ConfigKey<Duration> PARTIAL_FRAME_TIMEOUT = ConfigKey.millis("partial.frame.timeout.ms", 30_000, 1,
            Long.MAX_VALUE, "How long a frame may stay incomplete on a connection (client or replica port) before the "
                    + "connection is closed; idle connections are never closed.");
    /** {@code tls.replica}. */
    public static final ConfigKey<String> TLS_REPLICA = ConfigKey.choice("tls.replica", "off",
            "Mutual TLS between replicas: required or off.", "required", "off");
    /** {@code tls.client}. */
    public static final ConfigKey<String> TLS_CLIENT = ConfigKey.choice("tls.client", "off",
            "TLS on the client and front-end ports: on or off.", "on", "off");
    /** {@code tls.ca}. */
    public static final ConfigKey<String> TLS_CA = ConfigKey.text("tls.ca", null, true,
            "The CA certificate (PEM) every replica and client trusts; required with TLS on. Relative paths "
                    + "resolve against the cluster file's directory.");
    /** {@code tls.handshake.timeout.ms}. */
    public static final ConfigKey<Duration> TLS_HANDSHAKE_TIMEOUT = ConfigKey.millis("tls.handshake.timeout.ms",
            TlsConfig.DEFAULT_HANDSHAKE_TIMEOUT_MILLIS, 1, Long.MAX_VALUE,
            "How long a TLS handshake may take before the connection is closed.");

    /** {@code cluster.secret}: the file of the cluster secret. */
    public static final ConfigKey<String> CLUSTER_SECRET = ConfigKey.text("cluster.secret", null, true,
            "File of the cluster secret (at least 16 random bytes, written by ./parallax certs), the key of the HMAC on "
                    + "every M-Ring datagram and on every snapshot sent between replicas; required by M-Ring unless "
                    + "mring.auth=none, and with a data directory under tls.replica=required and tls.client=off. Relative "
                    + "paths resolve against the cluster file's directory.");

    /** The replica's keys. */
    public static final KeyTable TABLE = KeyTable.builder("Replica")
            .keys(MEMBERS, CLIENTS, DATA_DIR, SNAPSHOT_EVERY, SNAPSHOT_LOG_BYTES, SNAPSHOT_TRANSFER_TIMEOUT,
                    SNAPSHOT_MAX_BYTES, LOG_SYNC, CLIENT_IO_THREADS, REPLICA_IO_THREADS, WAIT, THREADS,
                    REQUEST_QUEUE_CAPACITY, PROPOSAL_QUEUE_CAPACITY, DECISION_QUEUE_CAPACITY, SEND_QUEUE_CAPACITY,
                    MAX_FRAME_BYTES, MAX_COMMAND_BYTES, CLIENT_WRITE_LOW_BYTES, CLIENT_WRITE_HIGH_BYTES, CLIENT_MAX_CONNECTIONS,
                    PARTIAL_FRAME_TIMEOUT,
                    TLS_REPLICA, TLS_CLIENT, TLS_CA, TLS_HANDSHAKE_TIMEOUT, CLUSTER_SECRET)
            .family("tls.cert.<id>", "tls\\.cert\\.\\d{1,9}", "Replica <id>'s certificate (PEM); required with TLS on.")
            .family("tls.key.<id>", "tls\\.key\\.\\d{1,9}", "Replica <id>'s private key (PKCS#8 PEM); required with TLS on.")
            .build();

    /**
     * The keys whose values a {@link ReplicaConfig} holds: every key of {@link #TABLE} but those read
     * into typed values ({@code members}, {@code clients}, {@code data.dir}, {@code threads},
     * {@code tls.*}, {@code cluster.secret}) or by the runtime ({@code snapshot.every}).
     */
    static final KeyTable CONFIG = KeyTable.of("Replica", TABLE.keys().stream()
            .filter(k -> !List.of(MEMBERS, CLIENTS, DATA_DIR, SNAPSHOT_EVERY, THREADS, TLS_REPLICA, TLS_CLIENT, TLS_CA,
                    TLS_HANDSHAKE_TIMEOUT, CLUSTER_SECRET).contains(k))
            .toArray(ConfigKey<?>[]::new));

    @Override
    public List<KeyTable> keyTables() {
        return List.of(TABLE);
    }

    /**
     * Refuses a protocol's catch-up byte budget {@code key} above half the file's
     * {@code max.frame.bytes}: a catch-up reply must fit one frame with room for its envelope, or a
     * lagging replica could never catch up. The protocols' key readers call it.
     *
     * @throws IllegalArgumentException naming the file and both keys
     */
    public static void requireFitsFrame(Settings s, ConfigKey<Integer> key) {
        int bytes = s.get(key);
        int frame = s.get(MAX_FRAME_BYTES);
        if (bytes > frame / 2) {
            throw s.error(key.name() + " (" + bytes + ") must be at most half of " + MAX_FRAME_BYTES.name() + " ("
                    + frame + ")");
        }
    }

    /**
     * The cluster's members ({@code members}).
     *
     * @throws IllegalArgumentException naming the source when absent or malformed
     */
    public static ClusterMembers members(Settings s) {
        String m = s.get(MEMBERS);
        if (m == null) {
            throw s.error("'members' is required, e.g. members=0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002");
        }
        try {
            return ClusterMembers.parse(m);
        } catch (IllegalArgumentException e) {
            throw s.error("members: " + e.getMessage());
        }
    }

    /**
     * A list of endpoints with one entry per member ({@code clients}, and the examples' front-end
     * keys), or empty when the key is absent or blank.
     *
     * @throws IllegalArgumentException naming the source and the key when malformed or of the wrong size
     */
    public static Optional<ClusterMembers> endpoints(Settings s, String key) {
        String v = s.raw(key).orElse(null);
        if (v == null || v.isBlank()) {
            return Optional.empty();
        }
        ClusterMembers c;
        try {
            c = ClusterMembers.parse(v);
        } catch (IllegalArgumentException e) {
            throw s.error(key + ": " + e.getMessage());
        }
        int n = members(s).size();
        if (c.size() != n) {
            throw s.error(key + " lists " + c.size() + " replicas, members lists " + n);
        }
        return Optional.of(c);
    }

    /** How replicas place their stages on threads ({@code threads}); absent: {@link ThreadPlacement#jvmDefault()}. */
    public static ThreadPlacement threads(Settings s) {
        return s.find(THREADS).map(ThreadPlacement::parse).orElseGet(ThreadPlacement::jvmDefault);
    }

    /**
     * Replica {@code id}'s configuration from the replica keys.
     *
     * @throws IllegalArgumentException naming the source and the faulty key
     */
    public static ReplicaConfig replicaConfig(Settings s, int id) {
        return replicaConfig(s, id, null);
    }

    /**
     * Replica {@code id}'s configuration from the replica keys, for a replica that joins the group
     * at {@code joinAddress} ({@code host:port}, its {@link ReplicaConfig#joinAddress()}) when its id
     * is not one of {@code members}; {@code null} for a member.
     *
     * @throws IllegalArgumentException naming the source and the faulty key or address: an id
     *                                  outside {@code 0..31}, a non-member without a join address, a
     *                                  member with one, a join address that is a member's
     */
    public static ReplicaConfig replicaConfig(Settings s, int id, String joinAddress) {
        ClusterMembers members = members(s);
        ReplicaConfig.Builder b = ReplicaConfig.builder().members(members);
        try {
            b.id(id);
            if (joinAddress != null) {
                Member join = ClusterMembers.address(id, joinAddress);
                b.joinAddress(join.host(), join.port());
            }
        } catch (IllegalArgumentException e) {
            throw s.error(e.getMessage());
        }
        endpoints(s, CLIENTS.name()).ifPresent(b::clientMembers);
        String dir = s.get(DATA_DIR);
        if (dir != null && !dir.isBlank()) {
            b.dataDirectory(Path.of(dir).resolve("replica-" + id));
        }
        b.values().setAll(s); // each value's error names the file and the key
        b.threads(threads(s));
        b.tls(tls(s, id));
        clusterSecret(s).ifPresent(b::clusterSecret);
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw s.error(e.getMessage());
        }
    }

    /**
     * Replica {@code id}'s TLS settings; {@link TlsConfig#OFF} unless {@code tls.replica=required}
     * or {@code tls.client=on}. Checks the keys, not the files ({@link #checkTlsFiles}).
     *
     * @throws IllegalArgumentException naming the key that is missing or malformed
     */
    public static TlsConfig tls(Settings s, int id) {
        boolean replicaPort = s.get(TLS_REPLICA).equals("required");
        boolean clientPorts = s.get(TLS_CLIENT).equals("on");
        if (!replicaPort && !clientPorts) {
            return TlsConfig.OFF;
        }
        TlsConfig.Builder b = TlsConfig.builder().replicaPort(replicaPort).clientPorts(clientPorts)
                .trust(tlsPath(s, TLS_CA.name())).identity(tlsPath(s, "tls.cert." + id), tlsPath(s, "tls.key." + id));
        Optional<Duration> handshake = s.find(TLS_HANDSHAKE_TIMEOUT);
        try {
            handshake.ifPresent(b::handshakeTimeout);
            return b.build();
        } catch (IllegalArgumentException e) {
            throw s.error(e.getMessage());
        }
    }

    /**
     * The cluster secret the file names ({@code cluster.secret}, relative to the file's directory),
     * read now; empty when the key is absent or blank.
     *
     * @throws IllegalArgumentException naming the file, the key and what is wrong with the secret file
     */
    public static Optional<ClusterSecret> clusterSecret(Settings s) {
        String v = s.raw(CLUSTER_SECRET.name()).orElse(null);
        if (v == null || v.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(ClusterSecret.read(s.path(v)));
        } catch (IllegalArgumentException e) {
            throw s.error(CLUSTER_SECRET.name() + ": " + e.getMessage());
        }
    }

    /** The CA certificate clients must trust, when the client ports run TLS ({@code tls.client=on}). */
    public static Optional<Path> clientTrust(Settings s) {
        return s.get(TLS_CLIENT).equals("on") ? Optional.of(tlsPath(s, TLS_CA.name())) : Optional.empty();
    }

    /**
     * Checks that replica {@code id}'s TLS files (CA, certificate, key) exist and are readable, so a
     * replica whose files are missing fails at start-up with the key and file named. Nothing with TLS off.
     *
     * @throws IllegalArgumentException naming the key, the file and what is wrong
     */
    public static void checkTlsFiles(Settings s, int id) {
        if (!tls(s, id).enabled()) {
            return;
        }
        for (String key : new String[] {TLS_CA.name(), "tls.cert." + id, "tls.key." + id}) {
            Path file = tlsPath(s, key);
            if (!Files.isRegularFile(file)) {
                throw s.error(key + "=" + file + ": no such file");
            }
            if (!Files.isReadable(file)) {
                throw s.error(key + "=" + file + ": not readable by this user");
            }
        }
    }

    /**
     * Checks every {@code tls.cert.<id>} / {@code tls.key.<id>} names a replica id,
     * {@code 0..}{@value Member#MAX_ID}: a member, or a replica that may join the group later
     * (its certificate can be in the file before it joins).
     *
     * @throws IllegalArgumentException naming the key
     */
    public static void checkTlsIds(Settings s) {
        members(s);
        for (String key : s.names()) {
            if (key.matches("tls\\.(cert|key)\\.\\d{1,9}") && Integer.parseInt(key.substring(key.lastIndexOf('.') + 1)) > Member.MAX_ID) {
                throw s.error(key + " names no replica: ids are 0.." + Member.MAX_ID);
            }
        }
    }

    private static Path tlsPath(Settings s, String key) {
        String v = s.raw(key).orElse(null);
        if (v == null || v.isBlank()) {
            throw s.error("'" + key + "' is required with TLS on (tls.replica=required or tls.client=on)");
        }
        return s.path(v);
    }
}
