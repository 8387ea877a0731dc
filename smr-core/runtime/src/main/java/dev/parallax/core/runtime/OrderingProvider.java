package dev.parallax.core.runtime;

import dev.parallax.core.config.KeyTableProvider;
import dev.parallax.core.config.Settings;

import java.util.Optional;

/**
 * An ordering protocol a cluster file can name with {@code ordering=<name>}: its name, its key
 * tables (the keys it reads, defined in its own module), and the factory that builds it from a
 * cluster file's settings. Registered as a {@link java.util.ServiceLoader} service
 * ({@code META-INF/services/dev.parallax.core.runtime.OrderingProvider}); {@link OrderingRegistry}
 * finds them.
 *
 * <p>Adding a protocol is adding a provider and its key table in the protocol's module, and its
 * keys to docs/operations.md (a test fails otherwise); no other module changes.
 *
 * <p>Implementations are stateless, have a public no-argument constructor, and are thread-safe;
 * {@link #create} builds a new, unstarted protocol on each call and does not block.
 */
public interface OrderingProvider extends KeyTableProvider {

    /**
     * What a provider reads from a cluster file.
     *
     * @param settings    the cluster file
     * @param members     n, the number of replicas
     * @param partitioned whether the executor partitions the state (S-SMR), so that each group's
     *                    stream runs over that partition's replicas only
     */
    record Context(Settings settings, int members, boolean partitioned) {
    }

    /** The name in cluster files and on the command line, e.g. {@code multi-paxos}. */
    String name();

    /** One sentence for documentation and {@code --help}: the protocol and the paper it follows. */
    String summary();

    /**
     * A new, unstarted protocol configured by {@code context}.
     *
     * @throws IllegalArgumentException naming the cluster file and the faulty key
     */
    OrderingProtocol create(Context context);

    /**
     * The key that sets how many groups this protocol orders commands by (Multi-Ring's
     * {@code multiring.rings}), if it orders by group; empty for a protocol with one stream.
     */
    default Optional<String> groupsKey() {
        return Optional.empty();
    }

    /** k, the groups commands are ordered by ({@link #groupsKey()}); 1 for a protocol with one stream. */
    default int groups(Context context) {
        return 1;
    }
}
