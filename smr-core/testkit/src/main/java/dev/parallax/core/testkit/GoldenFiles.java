package dev.parallax.core.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compares a golden trace (for example a {@link ScriptedCluster#trace()}) with a checked-in
 * expectation, so that a protocol change that alters behaviour, timers included, shows up as a
 * readable diff.
 *
 * <p><b>Regenerating.</b> To accept a deliberate change, rerun the golden tests with
 * {@code -Dgolden.update=true} (for example
 * {@code mvn -o test -pl smr-paxos -am -Dtest=GoldenTraceTest -Dgolden.update=true
 * -Dsurefire.failIfNoSpecifiedTests=false}): each compared file is rewritten with the actual trace
 * (and the test then passes); review and commit the diff of the golden files. Files live under
 * {@link #DEFAULT_DIR}, relative to the module directory, which is where Maven runs tests.
 *
 * <p>File format: the trace lines joined by {@code \n}, with a final {@code \n}, UTF-8.
 *
 * <p>Thread-safe (stateless); blocks on file IO.
 */
public final class GoldenFiles {
    /** The system property that rewrites golden files instead of comparing: {@value}. */
    public static final String UPDATE_PROPERTY = "golden.update";
    /** Where golden files live, relative to the module directory. */
    public static final Path DEFAULT_DIR = Path.of("src/test/resources/golden");

    private GoldenFiles() {
    }

    /** Compares {@code lines} with {@code DEFAULT_DIR/name}, or rewrites it under {@code -Dgolden.update=true}. */
    public static void assertMatches(String name, List<String> lines) {
        assertMatches(DEFAULT_DIR.resolve(name), lines, Boolean.getBoolean(UPDATE_PROPERTY));
    }

    /**
     * Compares {@code lines} with {@code file}; with {@code update}, first writes them there.
     *
     * @throws AssertionError if the file is missing or differs; the message names the first
     *         differing line and how to regenerate
     * @throws UncheckedIOException if the file cannot be read or written
     */
    public static void assertMatches(Path file, List<String> lines, boolean update) {
        String actual = render(lines);
        try {
            if (update) {
                Path parent = file.toAbsolutePath().getParent();
                Files.createDirectories(parent);
                Files.writeString(file, actual, StandardCharsets.UTF_8);
            }
            assertThat(file).as("golden file %s (run with -D%s=true to create it)", file, UPDATE_PROPERTY).exists();
            String expected = Files.readString(file, StandardCharsets.UTF_8);
            assertThat(actual).as("golden file %s differs %s; if the change is deliberate, rerun with -D%s=true"
                    + " and review the diff", file, firstDifference(expected, actual), UPDATE_PROPERTY)
                    .isEqualTo(expected);
        } catch (IOException e) {
            throw new UncheckedIOException("golden file " + file, e);
        }
    }

    /** The file text for {@code lines}: joined by {@code \n}, with a final {@code \n}. */
    public static String render(List<String> lines) {
        return String.join("\n", lines) + "\n";
    }

    private static String firstDifference(String expected, String actual) {
        String[] e = lines(expected);
        String[] a = lines(actual);
        int n = Math.min(e.length, a.length);
        for (int i = 0; i < n; i++) {
            if (!e[i].equals(a[i])) {
                return "at line " + (i + 1) + ": expected [" + e[i] + "] but was [" + a[i] + "]";
            }
        }
        return "in length: expected " + e.length + " lines but was " + a.length;
    }

    private static String[] lines(String text) {
        String body = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        return body.isEmpty() ? new String[0] : body.split("\n", -1);
    }
}
