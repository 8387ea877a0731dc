package dev.parallax.examples.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * README.md's promises about commands: its test command is exactly what {@code .ci/run} runs, its
 * main command is {@code ./parallax demo}, and every {@code ./parallax COMMAND} it or the guide
 * pages name is a command the launcher knows ({@link ParallaxCli}'s subcommands, plus
 * {@code bench} and {@code testbed}, which the launcher dispatches itself). Reads files only.
 */
class ReadmeCommandsTest {
    private static final Pattern FENCED = Pattern.compile("(?ms)^```[a-z]*\\n(.*?)^```");
    private static final Pattern PARALLAX_COMMAND = Pattern.compile("\\./parallax ([a-z][a-z-]*)");

    private static List<String> codeBlocks(String markdown) {
        List<String> blocks = new ArrayList<>();
        Matcher m = FENCED.matcher(markdown);
        while (m.find()) {
            blocks.add(m.group(1).strip());
        }
        return blocks;
    }

    @Test
    @DisplayName("README's test command is the command .ci/run runs, and its main command is ./parallax demo")
    void readmeCommandsAreCis() throws IOException {
        Path root = OperationsDocKeysTest.repositoryRoot();
        List<String> blocks = codeBlocks(Files.readString(root.resolve("README.md")));
        List<String> ci = Files.readAllLines(root.resolve(".ci/run")).stream().map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#") && !l.startsWith("set ") && !l.startsWith("cd ")).toList();
        assertThat(ci).as(".ci/run runs one command").hasSize(1);
        assertThat(blocks).as("README's code blocks").contains("./parallax demo", ci.get(0));
        assertThat(blocks.indexOf("./parallax demo")).as("the main job comes first").isLessThan(blocks.indexOf(ci.get(0)));
    }

    @Test
    @DisplayName("every ./parallax COMMAND named in README.md, CONTRIBUTING.md and docs/ is a command of the launcher")
    void everyNamedCommandExists() throws IOException {
        Path root = OperationsDocKeysTest.repositoryRoot();
        Set<String> known = new TreeSet<>(new CommandLine(new ParallaxCli()).getSubcommands().keySet());
        known.addAll(List.of("bench", "testbed"));
        List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md"), root.resolve("CONTRIBUTING.md")));
        try (var walk = Files.walk(root.resolve("docs"))) {
            walk.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<String> unknown = new ArrayList<>();
        for (Path page : pages) {
            Matcher m = PARALLAX_COMMAND.matcher(Files.readString(page));
            while (m.find()) {
                if (!known.contains(m.group(1))) {
                    unknown.add(root.relativize(page) + ": ./parallax " + m.group(1));
                }
            }
        }
        assertThat(unknown).as("commands the launcher does not have (it has %s)", known).isEmpty();
    }
}
