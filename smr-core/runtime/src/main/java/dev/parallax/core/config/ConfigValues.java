package dev.parallax.core.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Typed values for the keys of one {@link KeyTable}: what a protocol's configuration holds, so that
 * each parameter is declared once, as a {@link ConfigKey} (name, type, default, check, doc), and
 * read back by a one-line accessor. A key not set answers its default.
 *
 * <p>Immutable and thread-safe; built with {@link #builder(KeyTable)}.
 */
public final class ConfigValues {

    private final KeyTable table;
    private final Map<ConfigKey<?>, Object> values;

    private ConfigValues(KeyTable table, Map<ConfigKey<?>, Object> values) {
        this.table = table;
        this.values = values;
    }

    /** A builder over {@code table}'s keys, every one at its default. */
    public static Builder builder(KeyTable table) {
        return new Builder(table);
    }

    /** The value of {@code key}: the one set, else its default. */
    public <T> T get(ConfigKey<T> key) {
        Object v = values.get(key);
        return v == null ? key.defaultValue() : key.type().cast(v);
    }

    /** A builder holding these values (to derive a configuration from a template). */
    public Builder toBuilder() {
        Builder b = new Builder(table);
        b.values.putAll(values);
        return b;
    }

    /** Every key of the table with its value (set or default), as a cluster file writes it: {@code Name{key=value, ...}}. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(table.name()).append('{');
        for (ConfigKey<?> k : table.keys()) {
            Object v = get(k);
            b.append(b.charAt(b.length() - 1) == '{' ? "" : ", ").append(k.name()).append('=')
                    .append(v instanceof java.time.Duration d ? Long.toString(d.toMillis()) : v);
        }
        return b.append('}').toString();
    }

    /** Builds {@link ConfigValues}; every {@code set} checks the value. Not thread-safe. */
    public static final class Builder {
        private final KeyTable table;
        private final Map<ConfigKey<?>, Object> values = new LinkedHashMap<>();

        private Builder(KeyTable table) {
            this.table = Objects.requireNonNull(table, "table");
        }

        /**
         * Sets {@code key} to {@code value}.
         *
         * @throws IllegalArgumentException naming the key and the value, if the key's check refuses it
         *                                  or the key is not in the table
         */
        public <T> Builder set(ConfigKey<T> key, T value) {
            if (table.key(key.name()).orElse(null) != key) {
                throw new IllegalArgumentException(key.name() + " is not a key of " + table.name());
            }
            values.put(key, key.check(value));
            return this;
        }

        /** Sets every key of {@code settings} that the table owns ({@link Settings#valuesOf}). */
        @SuppressWarnings({"unchecked", "rawtypes"})
        public Builder setAll(Settings settings) {
            for (Map.Entry<ConfigKey<?>, Object> e : settings.valuesOf(table).entrySet()) {
                set((ConfigKey) e.getKey(), e.getValue());
            }
            return this;
        }

        /** The value set for {@code key}, else its default. */
        public <T> T get(ConfigKey<T> key) {
            Object v = values.get(key);
            return v == null ? key.defaultValue() : key.type().cast(v);
        }

        public ConfigValues build() {
            return new ConfigValues(table, new LinkedHashMap<>(values));
        }
    }
}
