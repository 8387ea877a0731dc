package dev.parallax.core.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * One configuration key: its name in a cluster file, its type, its default, its documentation and
 * the check every value must pass. Keys are declared once, as constants beside the configuration
 * they set (a protocol's {@code *Keys} class), and gathered into a {@link KeyTable}; the
 * cluster-file reader, the builders and the documentation test all read them from there.
 *
 * <p>Values are parsed from the text of a properties file ({@link #parse}) or set in code through
 * a builder; both pass {@link #check}, whose message names the key and the value, so an error
 * reads the same whichever way the value came in.
 *
 * <p>Immutable and thread-safe.
 *
 * @param <T> the value type: {@link Integer}, {@link Long}, {@link Duration} (written in whole
 *            milliseconds, names ending in {@code .ms}), {@link String} or {@link Boolean}
 */
public final class ConfigKey<T> {

    private final String name;
    private final Class<T> type;
    private final T defaultValue;
    private final String doc;
    private final Function<String, T> parser;
    private final UnaryOperator<T> check;

    private ConfigKey(String name, Class<T> type, T defaultValue, String doc, Function<String, T> parser, UnaryOperator<T> check) {
        this.name = Objects.requireNonNull(name, "name");
        this.type = Objects.requireNonNull(type, "type");
        this.defaultValue = defaultValue;
        this.doc = Objects.requireNonNull(doc, "doc");
        this.parser = parser;
        this.check = check;
        if (defaultValue != null) {
            check.apply(defaultValue);
        }
    }

    /**
     * An integer key whose values lie in {@code [min, max]}; messages read "must be &gt; 0" for
     * {@code min = 1}, "must be &gt;= 0" for {@code min = 0}, "must be &gt;= min" with no upper
     * bound, "must be min..max" otherwise.
     */
    public static ConfigKey<Integer> integer(String name, Integer defaultValue, int min, int max, String doc) {
        return new ConfigKey<>(name, Integer.class, defaultValue, doc, s -> parseLong(name, s, Integer.MIN_VALUE, Integer.MAX_VALUE).intValue(),
                v -> {
                    range(name, v, min, max, Integer.MAX_VALUE, "");
                    return v;
                });
    }

    /** {@link #integer} for {@code long} values. */
    public static ConfigKey<Long> longInteger(String name, Long defaultValue, long min, long max, String doc) {
        return new ConfigKey<>(name, Long.class, defaultValue, doc, s -> parseLong(name, s, Long.MIN_VALUE, Long.MAX_VALUE),
                v -> {
                    range(name, v, min, max, Long.MAX_VALUE, "");
                    return v;
                });
    }

    /**
     * A duration key written in whole milliseconds ({@code name} ends in {@code .ms}), in
     * {@code [minMillis, maxMillis]}.
     */
    public static ConfigKey<Duration> millis(String name, long defaultMillis, long minMillis, long maxMillis, String doc) {
        return new ConfigKey<>(name, Duration.class, Duration.ofMillis(defaultMillis), doc,
                s -> Duration.ofMillis(parseLong(name, s, Long.MIN_VALUE, Long.MAX_VALUE)),
                d -> {
                    Objects.requireNonNull(d, name);
                    if (minMillis >= 1 && (d.isZero() || d.isNegative())) {
                        throw new IllegalArgumentException(name + " must be > 0, got " + d.toMillis() + " ms");
                    }
                    if (minMillis == 0 && d.isNegative()) {
                        throw new IllegalArgumentException(name + " must be >= 0, got " + d.toMillis() + " ms");
                    }
                    if (minMillis > 1 && d.compareTo(Duration.ofMillis(minMillis)) < 0 || d.compareTo(Duration.ofMillis(maxMillis)) > 0) {
                        range(name, d.toMillis(), minMillis, maxMillis, Long.MAX_VALUE, " ms");
                    }
                    return d;
                });
    }

    /** A text key; blank values are refused ("must not be empty") unless {@code blankAllowed}; values are trimmed. */
    public static ConfigKey<String> text(String name, String defaultValue, boolean blankAllowed, String doc) {
        return new ConfigKey<>(name, String.class, defaultValue, doc, s -> s,
                s -> {
                    if (s == null || (!blankAllowed && s.isBlank())) {
                        throw new IllegalArgumentException(name + " must not be empty");
                    }
                    return s.trim();
                });
    }

    /** A text key that takes one of {@code values} (case and surrounding blanks ignored). */
    public static ConfigKey<String> choice(String name, String defaultValue, String doc, String... values) {
        List<String> allowed = Arrays.asList(values.clone());
        return new ConfigKey<>(name, String.class, defaultValue, doc, s -> s.trim().toLowerCase(Locale.ROOT),
                s -> {
                    String v = s == null ? null : s.trim().toLowerCase(Locale.ROOT);
                    if (!allowed.contains(v)) {
                        throw new IllegalArgumentException(name + " must be " + describe(allowed) + ", got '" + s + "'");
                    }
                    return v;
                });
    }

    /**
     * This key with a further check run after the type's own (for a bound with an explanation, such
     * as "at most one UDP datagram"); {@code extra} throws {@link IllegalArgumentException} or
     * returns the value.
     */
    public ConfigKey<T> andCheck(UnaryOperator<T> extra) {
        UnaryOperator<T> first = check;
        return new ConfigKey<>(name, type, defaultValue, doc, parser, v -> extra.apply(first.apply(v)));
    }

    /** The name in cluster files, e.g. {@code ring.window}. */
    public String name() {
        return name;
    }

    /** The value type. */
    public Class<T> type() {
        return type;
    }

    /** The value when the key is absent; null if the key has no default (absent means "not set"). */
    public T defaultValue() {
        return defaultValue;
    }

    /** One or two sentences for operators: what the key sets, its unit, the paper section it follows. */
    public String doc() {
        return doc;
    }

    /**
     * The value {@code text} (from a properties file) stands for, checked.
     *
     * @throws IllegalArgumentException naming the key, the text and the accepted values
     */
    public T parse(String text) {
        return check(parser.apply(text.trim()));
    }

    /**
     * {@code value} if it is acceptable (text trimmed, choices lower-cased).
     *
     * @throws IllegalArgumentException naming the key, the value and the accepted values
     */
    public T check(T value) {
        return check.apply(value);
    }

    /** The default as it would be written in a cluster file ({@code ""} if none). */
    public String defaultText() {
        if (defaultValue == null) {
            return "";
        }
        return defaultValue instanceof Duration d ? Long.toString(d.toMillis()) : defaultValue.toString();
    }

    @Override
    public String toString() {
        return name;
    }

    private static Long parseLong(String name, String s, long min, long max) {
        try {
            long v = Long.parseLong(s.trim().replace("_", ""));
            if (v < min || v > max) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " is not a whole number: '" + s.trim() + "'");
        }
    }

    private static void range(String name, long v, long min, long max, long unbounded, String unit) {
        if (v >= min && v <= max) {
            return;
        }
        String bound;
        if (max == unbounded) {
            bound = min == 1 ? "> 0" : ">= " + min;
        } else {
            bound = min + ".." + max;
        }
        throw new IllegalArgumentException(name + " must be " + bound + ", got " + v + unit);
    }

    private static String describe(List<String> allowed) {
        if (allowed.size() == 1) {
            return allowed.get(0);
        }
        return String.join(", ", allowed.subList(0, allowed.size() - 1)) + " or " + allowed.get(allowed.size() - 1);
    }
}
