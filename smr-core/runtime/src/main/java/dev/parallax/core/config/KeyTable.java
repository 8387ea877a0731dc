package dev.parallax.core.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The configuration keys one module owns, in the order its documentation lists them: a protocol's
 * {@code ring.*}, the replica's {@code members}, {@code data.dir} and {@code tls.*}, and so on.
 * Besides fixed keys a table may hold key <em>families</em> ({@link Family}: {@code tls.cert.<id>},
 * {@code multiring.ring.<i>.members}), matched by a pattern.
 *
 * <p>Tables are declared beside the configuration they set and registered with
 * {@link ConfigKeys} through a {@link KeyTableProvider}; the cluster-file reader accepts exactly
 * the keys of the registered tables. Immutable and thread-safe.
 */
public final class KeyTable {

    /**
     * A family of keys matched by a pattern, e.g. {@code tls.cert.<id>}.
     *
     * @param display how the documentation writes the family, e.g. {@code tls.cert.<id>}
     * @param pattern the keys of the family
     * @param doc     what the keys set
     */
    public record Family(String display, Pattern pattern, String doc) {
        public Family {
            Objects.requireNonNull(display, "display");
            Objects.requireNonNull(pattern, "pattern");
            Objects.requireNonNull(doc, "doc");
        }

        /** Whether {@code key} belongs to the family. */
        public boolean matches(String key) {
            return pattern.matcher(key).matches();
        }
    }

    private final String name;
    private final Map<String, ConfigKey<?>> keys;
    private final List<Family> families;

    private KeyTable(String name, Map<String, ConfigKey<?>> keys, List<Family> families) {
        this.name = name;
        this.keys = keys;
        this.families = families;
    }

    /** A table called {@code name} (for error messages and documentation, e.g. "Ring Paxos") of {@code keys}. */
    public static KeyTable of(String name, ConfigKey<?>... keys) {
        return new Builder(name).keys(keys).build();
    }

    /** A builder for a table with families. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** The table's name, e.g. "Ring Paxos". */
    public String name() {
        return name;
    }

    /** The fixed keys, in declaration order. */
    public List<ConfigKey<?>> keys() {
        return List.copyOf(keys.values());
    }

    /** The families of keys. */
    public List<Family> families() {
        return families;
    }

    /** The fixed key called {@code name}, if the table has one. */
    public Optional<ConfigKey<?>> key(String name) {
        return Optional.ofNullable(keys.get(name));
    }

    /** Whether {@code key} is one of the fixed keys or belongs to a family. */
    public boolean knows(String key) {
        return keys.containsKey(key) || families.stream().anyMatch(f -> f.matches(key));
    }

    /** Builds a {@link KeyTable}; not thread-safe. */
    public static final class Builder {
        private final String name;
        private final Map<String, ConfigKey<?>> keys = new LinkedHashMap<>();
        private final List<Family> families = new ArrayList<>();

        private Builder(String name) {
            this.name = Objects.requireNonNull(name, "name");
        }

        /** Adds fixed keys. @throws IllegalArgumentException on a name given twice */
        public Builder keys(ConfigKey<?>... add) {
            for (ConfigKey<?> k : add) {
                if (keys.putIfAbsent(k.name(), k) != null) {
                    throw new IllegalArgumentException("key " + k.name() + " declared twice in " + name);
                }
            }
            return this;
        }

        /** Adds a family of keys matching {@code regex}, documented as {@code display}. */
        public Builder family(String display, String regex, String doc) {
            families.add(new Family(display, Pattern.compile(regex), doc));
            return this;
        }

        public KeyTable build() {
            return new KeyTable(name, new LinkedHashMap<>(keys), List.copyOf(families));
        }
    }
}
