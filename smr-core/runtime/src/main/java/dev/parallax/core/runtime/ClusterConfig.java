package dev.parallax.core.runtime;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ConfigKey;
import dev.parallax.core.config.KeyTable;
import dev.parallax.core.config.KeyTableProvider;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.config.ReplicaKeys;
import dev.parallax.core.config.Settings;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A cluster file, read and checked against every registered key table: the one reader the
 * replica launcher, the examples and an embedding service share. It knows no protocol: the keys
 * come from the {@link KeyTableProvider}s and {@link OrderingProvider}s on the class path
 * ({@link OrderingRegistry}), each defined in the module it configures.
 *
 * <p>Checks on load: every key is registered (an unknown one is named with the nearest known
 * key), every value present passes its key's check (the keys of a protocol the file does not
 * select are not read), {@code members} is present and well formed, and the replica keys are valid. The
 * named protocol's checks across keys run when it is built ({@link #orderingProtocol}). Further checks across modules (an executor that needs an
 * ordering with groups, say) belong to whoever knows both.
 *
 * <p>Immutable and thread-safe.
 */
public final class ClusterConfig {

    /** {@code ordering}: the ordering protocol's name. */
    public static final ConfigKey<String> ORDERING = ConfigKey.text("ordering", OrderingRegistry.DEFAULT_ORDERING, false,
            "The ordering protocol: multi-paxos (default), s-paxos, u-ring, m-ring, multi-ring or multicast.");

    /** {@code execution}: the executor's name. */
    public static final ConfigKey<String> EXECUTION = ConfigKey.text("execution", "sequential", false,
            "The executor: sequential (default), late-scheduling, early-barrier, early-busy-wait, early-ws-queue, "
                    + "early-ws-semi-blocked, early-ws-non-blocked, early-ws-opt, p-smr or s-smr.");
    /** Workers of a parallel executor when {@code execution.threads} is absent. */
    public static final int DEFAULT_EXECUTION_THREADS = 2;
    /** {@code execution.threads}: workers of a parallel executor. */
    public static final ConfigKey<Integer> EXECUTION_THREADS = ConfigKey.integer("execution.threads", DEFAULT_EXECUTION_THREADS,
            Integer.MIN_VALUE, Integer.MAX_VALUE,
            "Workers of a parallel executor (>= 1); with p-smr one per group, equal to the ordering's groups (its default).");

    /** The table of the cluster-level keys this class reads itself. */
    public static final KeyTable TABLE = KeyTable.of("Cluster", ORDERING, EXECUTION, EXECUTION_THREADS);

    /** Registers {@link #TABLE} (a {@link java.util.ServiceLoader} service). Stateless. */
    public static final class Keys implements KeyTableProvider {
        @Override
        public List<KeyTable> keyTables() {
            return List.of(TABLE);
        }
    }

    private final Settings settings;

    private ClusterConfig(Settings settings) {
        this.settings = settings;
    }

    /**
     * Reads and checks a cluster file.
     *
     * @throws IllegalArgumentException naming the file and the faulty key
     * @throws IOException              if the file cannot be read
     */
    public static ClusterConfig load(Path file) throws IOException {
        return of(Settings.load(file));
    }

    /**
     * Checks settings already in memory, without the cross-module checks of {@link #partitioned}
     * protocols (see {@link #orderingProtocol(boolean)}).
     *
     * @throws IllegalArgumentException naming the source and the faulty key
     */
    public static ClusterConfig of(Settings settings) {
        ClusterConfig c = new ClusterConfig(settings);
        c.validate();
        return c;
    }

    /** Checks settings given as a map (an embedder building a cluster in code). */
    public static ClusterConfig of(Map<String, String> settings) {
        return of(Settings.of(settings));
    }

    private void validate() {
        settings.requireKnown(OrderingRegistry.keyTables());
        ReplicaKeys.members(settings);
        ReplicaKeys.endpoints(settings, ReplicaKeys.CLIENTS.name());
        ReplicaKeys.checkTlsIds(settings);
        for (int id = 0; id < members().size(); id++) {
            ReplicaKeys.tls(settings, id);
        }
        replica(0);
        OrderingProvider ordering = ordering();
        java.util.Set<String> protocolTables = new java.util.HashSet<>();
        OrderingRegistry.orderings().values().forEach(p -> p.keyTables().forEach(t -> protocolTables.add(t.name())));
        for (KeyTable t : OrderingRegistry.keyTables()) {
            if (!protocolTables.contains(t.name())) {
                settings.valuesOf(t); // every value present parses and passes its key's check
            }
        }
        for (KeyTable t : ordering.keyTables()) {
            settings.valuesOf(t); // the named protocol's values too; other protocols' keys are not read
        }
    }

    /** The settings, for modules that read keys of their own. */
    public Settings settings() {
        return settings;
    }

    /** The cluster's members. */
    public ClusterMembers members() {
        return ReplicaKeys.members(settings);
    }

    /**
     * The endpoints clients connect to: {@code clients} if set, else each member's replica port
     * plus 1000 (as {@link ReplicaConfig#clientMembers()}).
     */
    public ClusterMembers clientEndpoints() {
        return replica(0).clientMembers();
    }

    /** Replica {@code id}'s configuration. @throws IllegalArgumentException if not a member */
    public ReplicaConfig replica(int id) {
        if (id < 0 || id >= members().size()) {
            throw settings.error("replica " + id + " is not a member: ids are 0.." + (members().size() - 1));
        }
        return ReplicaKeys.replicaConfig(settings, id);
    }

    /**
     * The configuration of replica {@code id} joining the group at {@code joinAddress}
     * ({@code host:port}, where it listens): an id outside the file's members, up to
     * {@value dev.parallax.core.config.Member#MAX_ID}, that a membership change adds while it runs.
     * {@link ReplicaConfig#members()} stays the file's list. With {@code joinAddress} {@code null}
     * it is {@link #replica(int)}.
     *
     * @throws IllegalArgumentException naming the file: an id out of range, a member given a join
     *                                  address, a non-member without one, an address that is a member's
     */
    public ReplicaConfig replica(int id, String joinAddress) {
        if (joinAddress == null) {
            return replica(id);
        }
        return ReplicaKeys.replicaConfig(settings, id, joinAddress);
    }

    /** Decided instances between snapshots ({@code snapshot.every}), if set. */
    public Optional<Long> snapshotEvery() {
        return settings.find(ReplicaKeys.SNAPSHOT_EVERY).map(Integer::longValue);
    }

    /**
     * The ordering protocol's provider ({@code ordering}; default multi-paxos).
     *
     * @throws IllegalArgumentException naming the file, the key and the registered protocols
     */
    public OrderingProvider ordering() {
        try {
            return OrderingRegistry.ordering(settings.get(ORDERING));
        } catch (IllegalArgumentException e) {
            throw settings.error(e.getMessage());
        }
    }

    /** The context a provider builds from, with an executor that does not partition the state. */
    public OrderingProvider.Context orderingContext(boolean partitioned) {
        return new OrderingProvider.Context(settings, members().size(), partitioned);
    }

    /** A new, unstarted instance of the named ordering protocol, for an executor that does not partition the state. */
    public OrderingProtocol orderingProtocol() {
        return orderingProtocol(false);
    }

    /**
     * A new, unstarted instance of the named ordering protocol.
     *
     * @param partitioned whether the executor partitions the state (S-SMR): each group's stream
     *                    then runs over that partition's replicas only
     */
    public OrderingProtocol orderingProtocol(boolean partitioned) {
        return ordering().create(orderingContext(partitioned));
    }

    /**
     * A new, unstarted executor of the kind {@code execution} names (default sequential), with
     * {@code execution.threads} workers, for a service that tells executors {@code traits} about
     * itself (by type; the scheduling executors want smr-scheduler's {@code ServiceClasses}).
     *
     * @throws IllegalArgumentException naming the file, the key and what the service lacks
     */
    public dev.parallax.core.spi.Executor executor(Map<Class<?>, Object> traits) {
        int workers = settings.get(EXECUTION_THREADS);
        if (workers < 1) {
            throw settings.error(EXECUTION_THREADS.name() + " must be >= 1, got " + workers);
        }
        try {
            return ExecutionRegistry.execution(settings.get(EXECUTION)).create(new ExecutionProvider.Context(settings, workers, traits));
        } catch (IllegalArgumentException e) {
            throw settings.error(e.getMessage());
        }
    }

    /** This configuration with {@code overrides} replacing or adding keys, checked again. */
    public ClusterConfig with(Map<String, String> overrides) {
        return of(settings.with(overrides));
    }
}
