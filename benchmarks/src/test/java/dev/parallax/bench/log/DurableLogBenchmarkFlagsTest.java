package dev.parallax.bench.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Fork;

/** The JMH fork of the durable-log benchmark gets the same Chronicle flags as the build's tests. */
class DurableLogBenchmarkFlagsTest {
    @Test
    void forkFlagsAreTheBuildsChronicleFlags() {
        Fork fork = DurableLogBenchmark.class.getAnnotation(Fork.class);
        List<String> forked = Arrays.stream(fork.jvmArgsAppend())
                .filter(f -> f.startsWith("--add-") || f.startsWith("-Dchronicle.")).toList();
        List<String> testJvm = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(f -> f.startsWith("--add-") || f.startsWith("-Dchronicle.")).toList();
        assertThat(forked).containsExactlyInAnyOrderElementsOf(testJvm);
    }
}
