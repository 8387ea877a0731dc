package dev.parallax.core.arch;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A build rule: no test code of any module sleeps to wait for something. A test waits for a
 * condition with {@code dev.parallax.core.testkit.Await} (the one file exempt: its poll
 * pauses). A sleep that <em>is</em> the scenario (a replica kept down a while, time let pass to
 * show that nothing happens, a load run between two faults) stays, marked with a comment
 * {@value #MARK} on its line or the line before, saying why.
 *
 * <p>Scans {@code <module>/src/test/java} and {@code <module>/<sub-module>/src/test/java} under the
 * repository root, found from the working directory (any module's, or the root) by walking up to
 * the pom whose own artifactId is {@code parallax-parent}.
 */
class NoSleepInTestsTest {
    /** The comment that marks a sleep as the scenario. */
    static final String MARK = "sleep is the scenario";
    /** The helper whose poll sleeps, as a path suffix (whatever module it lives in). */
    static final String AWAIT = "src/test/java/dev/parallax/core/testkit/cluster/Await.java";

    private static final Pattern SLEEP = Pattern.compile("\\bThread\\s*\\.\\s*sleep\\s*\\(");
    private static final Pattern PARENT_BLOCK = Pattern.compile("<parent>.*?</parent>", Pattern.DOTALL);
    private static final String ROOT_ARTIFACT = "<artifactId>parallax-parent</artifactId>";

    @Test
    @DisplayName("every Thread.sleep in test code is marked as the scenario")
    void noUnmarkedSleepInTests() throws IOException {
        Path root = repositoryRoot(Path.of("").toAbsolutePath());
        List<Path> sources = testSourceRoots(root);
        assertThat(sources).as("test source roots under %s", root)
                .anySatisfy(p -> assertThat(root.relativize(p).toString().replace('\\', '/')).startsWith("smr-core"))
                .hasSizeGreaterThan(1);
        List<String> offences = new ArrayList<>();
        int files = 0;
        for (Path source : sources) {
            try (Stream<Path> walk = Files.walk(source)) {
                for (Path file : walk.filter(f -> f.toString().endsWith(".java")).toList()) {
                    files++;
                    String relative = root.relativize(file).toString().replace('\\', '/');
                    if (relative.endsWith(AWAIT)) {
                        continue;
                    }
                    for (int line : unmarkedSleeps(Files.readAllLines(file, StandardCharsets.UTF_8))) {
                        offences.add(relative + ":" + line);
                    }
                }
            }
        }
        assertThat(files).as("test sources scanned").isGreaterThan(50);
        assertThat(offences).as("Thread.sleep in tests: wait for a condition with Await instead, or, if the sleep "
                + "is the scenario, say why in a comment '// " + MARK + ": <why>' on its line or the line before")
                .isEmpty();
    }

    @Test
    @DisplayName("the rule: a sleep is marked on its own line or the line before; comments are not code")
    void theRuleReadsLinesAsDocumented() {
        String sleep = "Thread." + "sleep(10);";
        assertThat(unmarkedSleeps(List.of("int a;", "    " + sleep))).containsExactly(2);
        assertThat(unmarkedSleeps(List.of("    " + sleep + " // " + MARK + ": the fault lasts"))).isEmpty();
        assertThat(unmarkedSleeps(List.of("    // " + MARK + ": time passes", "    " + sleep))).isEmpty();
        assertThat(unmarkedSleeps(List.of("    // " + MARK + ": time passes", "", "    " + sleep))).containsExactly(3);
        assertThat(unmarkedSleeps(List.of("    // then " + sleep, " * {@code " + sleep + "}"))).isEmpty();
        assertThat(unmarkedSleeps(List.of("    java.lang.Thread . " + "sleep (1);"))).containsExactly(1);
    }

    @Test
    @DisplayName("the root is the pom whose own artifactId is parallax-parent, not a module naming it as parent")
    void theRootIsFoundFromAModuleDirectory() throws IOException {
        Path root = repositoryRoot(Path.of("").toAbsolutePath());
        assertThat(Files.readString(root.resolve("pom.xml"))).contains(ROOT_ARTIFACT);
        assertThat(repositoryRoot(root.resolve("smr-core"))).isEqualTo(root);
        assertThat(repositoryRoot(root.resolve("smr-core").resolve("src").resolve("test"))).isEqualTo(root);
    }

    /** The 1-based numbers of the lines that call Thread.sleep without the mark on them or the line before. */
    static List<Integer> unmarkedSleeps(List<String> lines) {
        List<Integer> found = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            String code = line.strip();
            if (code.startsWith("//") || code.startsWith("*") || code.startsWith("/*")) {
                continue;
            }
            int comment = code.indexOf("//");
            if (!SLEEP.matcher(comment < 0 ? code : code.substring(0, comment)).find()) {
                continue;
            }
            boolean marked = line.contains(MARK) || (i > 0 && lines.get(i - 1).contains(MARK));
            if (!marked) {
                found.add(i + 1);
            }
        }
        return found;
    }

    /** The nearest directory at or above {@code from} whose pom.xml is the parallax-parent pom itself. */
    static Path repositoryRoot(Path from) throws IOException {
        for (Path dir = from; dir != null; dir = dir.getParent()) {
            Path pom = dir.resolve("pom.xml");
            if (Files.isRegularFile(pom)
                    && PARENT_BLOCK.matcher(Files.readString(pom, StandardCharsets.UTF_8)).replaceAll("").contains(ROOT_ARTIFACT)) {
                return dir;
            }
        }
        throw new IllegalStateException("no pom.xml with " + ROOT_ARTIFACT + " at or above " + from);
    }

    /** {@code root/<m>/src/test/java} and {@code root/<m>/<s>/src/test/java}, those that exist. */
    static List<Path> testSourceRoots(Path root) {
        List<Path> found = new ArrayList<>();
        for (Path module : subdirectories(root)) {
            addIfDirectory(found, module.resolve("src").resolve("test").resolve("java"));
            for (Path sub : subdirectories(module)) {
                addIfDirectory(found, sub.resolve("src").resolve("test").resolve("java"));
            }
        }
        return found;
    }

    private static void addIfDirectory(List<Path> found, Path dir) {
        if (Files.isDirectory(dir)) {
            found.add(dir);
        }
    }

    private static List<Path> subdirectories(Path dir) {
        List<Path> dirs = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, Files::isDirectory)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!name.startsWith(".") && !name.equals("target") && !name.equals("src")) {
                    dirs.add(entry);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        dirs.sort(null);
        return dirs;
    }
}
