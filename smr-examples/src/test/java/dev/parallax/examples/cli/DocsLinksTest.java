package dev.parallax.examples.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Markdown pages a reader follows: every relative link in the top-level pages and docs/**.md names a file
 * or directory that exists (anchors are not checked), and no page points readers at
 * tracker numbers or design notes that are not in the repository. Reads files only.
 */
class DocsLinksTest {
    /** An inline link or image, {@code [text](target)} or {@code [text](target "title")}. */
    private static final Pattern INLINE = Pattern.compile("\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    /** A reference definition, {@code [label]: target}. */
    private static final Pattern REFERENCE = Pattern.compile("(?m)^\\s{0,3}\\[[^\\]]+\\]:\\s*(\\S+)");
    /** A fenced code block: its links are examples, not links. */
    private static final Pattern FENCE = Pattern.compile("(?ms)^\\s*```.*?^\\s*```");
    /** A tracker reference (the word issue and a number) or a design note outside the repository. */
    private static final Pattern FORBIDDEN = Pattern.compile("(?i)\\bissue[ -]?[1-9][0-9]?\\b|shared/design");

    private static List<Path> pages(Path root) throws IOException {
        List<Path> pages = new ArrayList<>();
        for (String top : List.of("README.md", "CHANGELOG.md", "CONTRIBUTING.md", "SECURITY.md")) {
            pages.add(root.resolve(top));
        }
        try (Stream<Path> walk = Files.walk(root.resolve("docs"))) {
            walk.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The link targets of a page outside code blocks. */
    static List<String> targets(String markdown) {
        String text = FENCE.matcher(markdown).replaceAll("");
        List<String> targets = new ArrayList<>();
        for (Pattern p : List.of(INLINE, REFERENCE)) {
            Matcher m = p.matcher(text);
            while (m.find()) {
                targets.add(m.group(1));
            }
        }
        return targets;
    }

    /** Whether a target is a file link to check: not a URL, a mail address or an anchor on the page itself. */
    static boolean relative(String target) {
        return !target.matches("(?i)[a-z][a-z0-9+.-]*:.*") && !target.startsWith("#") && !target.startsWith("<");
    }

    @Test
    @DisplayName("every relative link in the top-level pages and docs/**.md names an existing file or directory")
    void relativeLinksResolve() throws IOException {
        Path root = OperationsDocKeysTest.repositoryRoot();
        List<String> broken = new ArrayList<>();
        for (Path page : pages(root)) {
            for (String target : targets(Files.readString(page))) {
                if (!relative(target)) {
                    continue;
                }
                String file = target.replaceAll("#.*$", "").replaceAll("\\?.*$", "");
                if (file.isEmpty()) {
                    continue;
                }
                Path resolved = page.getParent().resolve(java.net.URLDecoder.decode(file, java.nio.charset.StandardCharsets.UTF_8))
                        .normalize();
                if (!Files.exists(resolved)) {
                    broken.add(root.relativize(page) + " -> " + target);
                }
            }
        }
        assertThat(broken).as("links to files that do not exist").isEmpty();
    }

    @Test
    @DisplayName("no page (README, CHANGELOG, CONTRIBUTING, SECURITY, docs/) mentions a tracker number or a design note outside the repository")
    void noTrackerOrDesignNoteReferences() throws IOException {
        Path root = OperationsDocKeysTest.repositoryRoot();
        List<String> found = new ArrayList<>();
        for (Path page : pages(root)) {
            List<String> lines = Files.readAllLines(page);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = FORBIDDEN.matcher(lines.get(i));
                if (m.find()) {
                    found.add(root.relativize(page) + ":" + (i + 1) + ": " + m.group());
                }
            }
        }
        assertThat(found).as("references readers cannot follow").isEmpty();
    }

    @Test
    @DisplayName("the link reader finds inline links, images and reference definitions, and skips code blocks and URLs")
    void readsLinks() {
        String md = "See [a](a.md#x) and ![b](images/b.png \"B\").\n[c]: ../c.md\n```\n[d](d.md)\n```\n[e](https://e.org)\n";
        assertThat(targets(md)).containsExactlyInAnyOrder("a.md#x", "images/b.png", "https://e.org", "../c.md");
        assertThat(relative("https://e.org")).isFalse();
        assertThat(relative("#top")).isFalse();
        assertThat(relative("../c.md")).isTrue();
    }
}
