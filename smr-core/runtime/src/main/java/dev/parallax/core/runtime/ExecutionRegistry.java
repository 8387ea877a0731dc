package dev.parallax.core.runtime;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * The executors on the class path, found with {@link ServiceLoader} ({@link ExecutionProvider}):
 * {@code sequential} from this module, the scheduling executors and P-SMR from smr-scheduler.
 * Loaded once per class loader on first use, sorted by name; thread-safe.
 */
public final class ExecutionRegistry {

    private static final class Loaded {
        static final Map<String, ExecutionProvider> EXECUTIONS = load();
    }

    private ExecutionRegistry() {
    }

    /** Every registered executor by name, sorted by name. */
    public static Map<String, ExecutionProvider> executions() {
        return Loaded.EXECUTIONS;
    }

    /**
     * The executor called {@code name} (case and surrounding blanks ignored).
     *
     * @throws IllegalArgumentException naming the key and the registered names
     */
    public static ExecutionProvider execution(String name) {
        ExecutionProvider p = Loaded.EXECUTIONS.get(name.trim().toLowerCase(Locale.ROOT));
        if (p == null) {
            throw new IllegalArgumentException("execution must be one of " + String.join(", ", Loaded.EXECUTIONS.keySet())
                    + "; got '" + name + "'");
        }
        return p;
    }

    private static Map<String, ExecutionProvider> load() {
        Map<String, ExecutionProvider> m = new TreeMap<>();
        for (ExecutionProvider p : ServiceLoader.load(ExecutionProvider.class, ExecutionRegistry.class.getClassLoader())) {
            ExecutionProvider old = m.putIfAbsent(p.name(), p);
            if (old != null && old.getClass() != p.getClass()) {
                throw new IllegalStateException("two execution providers named " + p.name() + ": "
                        + old.getClass().getName() + " and " + p.getClass().getName());
            }
        }
        return Collections.unmodifiableMap(new LinkedHashMap<>(m));
    }
}
