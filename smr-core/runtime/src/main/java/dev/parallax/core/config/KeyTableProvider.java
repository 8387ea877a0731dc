package dev.parallax.core.config;

import java.util.List;

/**
 * A module's contribution to the cluster file: the key tables it owns. Registered as a
 * {@link java.util.ServiceLoader} service ({@code META-INF/services/dev.parallax.core.config.KeyTableProvider});
 * ordering protocols register theirs through {@code dev.parallax.core.runtime.OrderingProvider},
 * which extends this interface.
 *
 * <p>Implementations are stateless, have a public no-argument constructor, and are thread-safe.
 */
public interface KeyTableProvider {

    /** The tables this module owns, fixed for the life of the JVM. */
    List<KeyTable> keyTables();
}
