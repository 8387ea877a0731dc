package dev.parallax.core.runtime;

import dev.parallax.core.config.KeyTable;
import dev.parallax.core.config.KeyTableProvider;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The ordering protocols and key tables on the class path, found with {@link ServiceLoader}
 * ({@link OrderingProvider}, {@link KeyTableProvider}). The cluster-file reader accepts exactly the
 * keys of {@link #keyTables()}, and {@code ordering=<name>} names one of {@link #orderings()}.
 *
 * <p>Loaded once per class loader on first use; thread-safe.
 */
public final class OrderingRegistry {

    private static final class Loaded {
        static final Map<String, OrderingProvider> ORDERINGS = loadOrderings();
        static final List<KeyTable> TABLES = loadTables();
    }

    /** The protocol of a cluster file that names none. */
    public static final String DEFAULT_ORDERING = "multi-paxos";

    private OrderingRegistry() {
    }

    /** Every registered protocol by name, sorted by name. */
    public static Map<String, OrderingProvider> orderings() {
        return Loaded.ORDERINGS;
    }

    /**
     * The protocol called {@code name} (case and surrounding blanks ignored).
     *
     * @throws IllegalArgumentException naming the key and the registered names
     */
    public static OrderingProvider ordering(String name) {
        OrderingProvider p = Loaded.ORDERINGS.get(name.trim().toLowerCase(Locale.ROOT));
        if (p == null) {
            throw new IllegalArgumentException("ordering must be one of " + String.join(", ", Loaded.ORDERINGS.keySet())
                    + "; got '" + name + "'" + (Loaded.ORDERINGS.isEmpty() ? " (no ordering module on the class path)" : ""));
        }
        return p;
    }

    /** Every registered key table: each {@link KeyTableProvider}'s and each protocol's. */
    public static List<KeyTable> keyTables() {
        return Loaded.TABLES;
    }

    private static Map<String, OrderingProvider> loadOrderings() {
        Map<String, OrderingProvider> m = new java.util.TreeMap<>(); // by name: the same order whatever the class path
        for (OrderingProvider p : ServiceLoader.load(OrderingProvider.class, OrderingRegistry.class.getClassLoader())) {
            OrderingProvider old = m.putIfAbsent(p.name(), p);
            if (old != null && old.getClass() != p.getClass()) {
                throw new IllegalStateException("two ordering providers named " + p.name() + ": "
                        + old.getClass().getName() + " and " + p.getClass().getName());
            }
        }
        return java.util.Collections.unmodifiableMap(new LinkedHashMap<>(m));
    }

    private static List<KeyTable> loadTables() {
        List<KeyTable> tables = new ArrayList<>();
        for (KeyTableProvider p : ServiceLoader.load(KeyTableProvider.class, OrderingRegistry.class.getClassLoader())) {
            tables.addAll(p.keyTables());
        }
        for (OrderingProvider p : Loaded.ORDERINGS.values()) {
            for (KeyTable t : p.keyTables()) {
                if (tables.stream().noneMatch(x -> x.name().equals(t.name()))) {
                    tables.add(t);
                }
            }
        }
        return List.copyOf(tables);
    }
}
