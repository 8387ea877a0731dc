package dev.parallax.core.runtime;

import dev.parallax.core.config.Settings;
import dev.parallax.core.spi.Executor;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An executor a cluster file can name with {@code execution=<name>}: its name and the factory that
 * builds it for a service. Registered as a {@link java.util.ServiceLoader} service
 * ({@code META-INF/services/dev.parallax.core.runtime.ExecutionProvider}); {@link ExecutionRegistry}
 * finds them. What an executor needs to know of the service (the request classes of the
 * scheduling executors, the C-G function of P-SMR) comes as <em>traits</em>, objects looked up by
 * type, so that this interface names no executor's types.
 *
 * <p>Implementations are stateless, have a public no-argument constructor, and are thread-safe;
 * {@link #create} builds a new, unstarted executor on each call and does not block.
 */
public interface ExecutionProvider {

    /**
     * What a provider builds from.
     *
     * @param settings the cluster file
     * @param workers  worker threads of a parallel executor ({@code execution.threads})
     * @param traits   what the service tells executors about itself, by type
     */
    record Context(Settings settings, int workers, Map<Class<?>, Object> traits) {
        public Context {
            Objects.requireNonNull(settings, "settings");
            traits = Map.copyOf(traits);
        }

        /** The service's trait of type {@code type}, if it has one. */
        public <T> Optional<T> trait(Class<T> type) {
            return Optional.ofNullable(traits.get(type)).map(type::cast);
        }
    }

    /** The name in cluster files and on the command line, e.g. {@code early-busy-wait}. */
    String name();

    /** One sentence for documentation and {@code --help}: the executor and the paper it follows. */
    String summary();

    /**
     * A new, unstarted executor for the service {@code context} describes.
     *
     * @throws IllegalArgumentException naming the key and what the service lacks, if it cannot run
     *                                  under this executor
     */
    Executor create(Context context);
}
