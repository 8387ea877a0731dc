package dev.parallax.core.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The text of a cluster file (or of any {@code key=value} source) with typed reads through
 * {@link ConfigKey}s: {@link #get} parses and checks a value or answers the key's default, and
 * every error names the source and the key ({@code cluster.properties: ring.window must be > 0,
 * got 0}).
 *
 * <p>Immutable and thread-safe.
 */
public final class Settings {

    private final Map<String, String> values;
    private final Path source;

    private Settings(Map<String, String> values, Path source) {
        this.values = values;
        this.source = source;
    }

    /** Settings read from a properties file; relative paths in it resolve against its directory. */
    public static Settings load(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        return of(p, file);
    }

    /** Settings from properties already in memory; {@code source} (may be null) names them in errors. */
    public static Settings of(Properties properties, Path source) {
        Map<String, String> m = new TreeMap<>();
        for (String k : properties.stringPropertyNames()) {
            m.put(k, properties.getProperty(k));
        }
        return new Settings(m, source);
    }

    /** Settings from a map (tests, embedders building a cluster in code). */
    public static Settings of(Map<String, String> values) {
        return new Settings(new TreeMap<>(values), null);
    }

    /** These settings with {@code overrides} replacing or adding keys. */
    public Settings with(Map<String, String> overrides) {
        Map<String, String> m = new TreeMap<>(values);
        m.putAll(overrides);
        return new Settings(m, source);
    }

    /**
     * The value of {@code key}, parsed and checked, or its default when absent (null for a key
     * without a default).
     *
     * @throws IllegalArgumentException naming the source, the key and the accepted values
     */
    public <T> T get(ConfigKey<T> key) {
        String raw = values.get(key.name());
        if (raw == null) {
            return key.defaultValue();
        }
        try {
            return key.parse(raw);
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
    }

    /** The value of {@code key} if the settings hold it (parsed and checked as {@link #get} does). */
    public <T> Optional<T> find(ConfigKey<T> key) {
        return has(key.name()) ? Optional.ofNullable(get(key)) : Optional.empty();
    }

    /** Whether the settings hold {@code key}. */
    public boolean has(String key) {
        return values.containsKey(key);
    }

    /** The text of {@code key}, if present. */
    public Optional<String> raw(String key) {
        return Optional.ofNullable(values.get(key));
    }

    /** Every key present, sorted. */
    public Set<String> names() {
        return new TreeSet<>(values.keySet());
    }

    /** A copy of the settings as properties (to write a file). */
    public Properties toProperties() {
        Properties p = new Properties();
        p.putAll(values);
        return p;
    }

    /** The file these settings came from, if any. */
    public Optional<Path> source() {
        return Optional.ofNullable(source);
    }

    /** {@code text} as a path: relative paths resolve against the source file's directory. */
    public Path path(String text) {
        Path p = Path.of(text.trim());
        if (p.isAbsolute() || source == null) {
            return p;
        }
        Path dir = source.toAbsolutePath().getParent();
        return dir == null ? p : dir.resolve(p);
    }

    /** An error naming the source: {@code "<file>: what"} (or {@code "configuration: what"}). */
    public IllegalArgumentException error(String what) {
        return new IllegalArgumentException((source == null ? "configuration" : source.toString()) + ": " + what);
    }

    /**
     * Checks that every key present belongs to one of {@code tables}; an unknown key is reported
     * with the nearest known one when it looks like a typo.
     *
     * @throws IllegalArgumentException listing every unknown key
     */
    public void requireKnown(Collection<KeyTable> tables) {
        List<String> unknown = new ArrayList<>();
        for (String k : values.keySet()) {
            if (tables.stream().noneMatch(t -> t.knows(k))) {
                unknown.add(k);
            }
        }
        if (unknown.isEmpty()) {
            return;
        }
        List<String> known = new ArrayList<>();
        for (KeyTable t : tables) {
            for (ConfigKey<?> key : t.keys()) {
                known.add(key.name());
            }
        }
        List<String> described = new ArrayList<>();
        for (String k : unknown) {
            described.add("'" + k + "'" + NearestKey.suggest(k, known).map(s -> " (did you mean " + s + "?)").orElse(""));
        }
        throw error((unknown.size() == 1 ? "unknown key " : "unknown keys ") + String.join(", ", described)
                + "; docs/operations.md lists every key");
    }

    /**
     * The values of {@code table}'s fixed keys that these settings hold, parsed and checked, in the
     * table's order: what a configuration builder copies in ({@link ConfigValues.Builder#setAll}).
     *
     * @throws IllegalArgumentException naming the source and the first faulty key
     */
    public Map<ConfigKey<?>, Object> valuesOf(KeyTable table) {
        Map<ConfigKey<?>, Object> m = new LinkedHashMap<>();
        for (ConfigKey<?> k : table.keys()) {
            if (has(k.name())) {
                m.put(k, Objects.requireNonNull(get(k)));
            }
        }
        return m;
    }

    @Override
    public String toString() {
        return "Settings" + values;
    }
}
