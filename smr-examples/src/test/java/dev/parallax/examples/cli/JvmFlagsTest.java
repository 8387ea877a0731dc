package dev.parallax.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Chronicle flags exist in two forms: {@code chronicle.jvm.args} in the parent pom (the test
 * JVMs) and {@code jvm-flags.txt} (replica processes, {@code ./parallax}). This checks they agree,
 * using the running test JVM's own arguments, which surefire took from the pom.
 */
class JvmFlagsTest {
    @Test
    void replicaFlagsAreTheBuildsChronicleFlags() {
        List<String> replica = JvmFlags.replica().stream()
                .filter(f -> !f.startsWith("-Dorg.slf4j")).toList();
        List<String> testJvm = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(f -> f.startsWith("--add-") || f.startsWith("-Dchronicle.")).toList();
        assertThat(replica).as("jvm-flags.txt vs the pom's chronicle.jvm.args")
                .containsExactlyInAnyOrderElementsOf(testJvm);
    }

    @Test
    void chronicleAnalyticsAreOffInTestsAndReplicas() {
        assertThat(System.getProperty("chronicle.analytics.disable")).isEqualTo("true");
        assertThat(JvmFlags.replica()).contains("-Dchronicle.analytics.disable=true");
    }
}
