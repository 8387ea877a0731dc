package dev.parallax.examples.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every meter Parallax registers has a description, which Prometheus shows as its HELP text:
 * checked in the sources of every module, so that meters registered late (after a failover, on a
 * bad frame, per message type) are covered too, not only those a running replica shows. A meter
 * builder call ({@code Counter.builder(}, {@code Timer.builder(}, ...) must call
 * {@code .description(} with a non-empty text before its {@code .register(}.
 */
class MeterDescriptionsTest {
    private static final Pattern BUILDER = Pattern.compile(
            "\\b(Counter|Timer|Gauge|DistributionSummary|FunctionCounter|FunctionTimer|TimeGauge|LongTaskTimer)\\.builder\\(");

    @Test
    void everyMeterBuilderInTheSourcesHasADescription() throws IOException {
        Path root = repositoryRoot();
        List<String> missing = new ArrayList<>();
        int builders = 0;
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : (Iterable<Path>) files.filter(MeterDescriptionsTest::mainSource)::iterator) {
                String text = read(f);
                Matcher m = BUILDER.matcher(text);
                while (m.find()) {
                    builders++;
                    int end = text.indexOf(".register(", m.end());
                    String call = text.substring(m.start(), end < 0 ? text.length() : end);
                    if (!call.contains(".description(") || call.contains(".description(\"\")")) {
                        int line = (int) text.substring(0, m.start()).chars().filter(c -> c == '\n').count() + 1;
                        missing.add(root.relativize(f) + ":" + line);
                    }
                }
            }
        }
        assertThat(builders).as("meter builders found (is the scan looking at the sources?)").isGreaterThan(50);
        assertThat(missing).as("meter builders without a description").isEmpty();
    }

    private static boolean mainSource(Path p) {
        String s = p.toString().replace('\\', '/');
        return s.endsWith(".java") && s.contains("/src/main/java/") && !s.contains("/target/");
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path repositoryRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("docs"))) {
            p = p.getParent();
        }
        assertThat(p).as("a directory with docs/ above " + Path.of("").toAbsolutePath()).isNotNull();
        return p;
    }
}
