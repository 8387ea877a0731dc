package dev.parallax.ringpaxos;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static dev.parallax.ringpaxos.RingCluster.MS;
import static dev.parallax.ringpaxos.RingCluster.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Ring Paxos core is a deterministic step function (the project's rule for protocol cores): no
 * threads, clocks, randomness, IO or network in its classes, and the same script gives the same
 * trace. The runtime adapters ({@code RingPaxos}, {@code RingPaxosBroadcast}) are the package's
 * classes allowed to.
 */
class RingCorePurityTest {
    private static final Pattern FORBIDDEN = Pattern.compile(
            "\\b(Thread|Executor\\w*|CompletableFuture|synchronized|volatile|System\\.(nanoTime|currentTimeMillis)"
                    + "|Instant\\.now|LocalDateTime|Random|SplittableRandom|ThreadLocalRandom|java\\.io\\.|java\\.net\\."
                    + "|java\\.nio\\.channels|java\\.nio\\.file|java\\.util\\.concurrent|Clock)\\b");
    private static final List<String> DRIVERS = List.of("RingPaxos.java", "RingPaxosBroadcast.java");

    @Test
    @DisplayName("protocol cores: no threads, clocks, randomness or IO in the core's classes")
    void coreClassesUseNoThreadsClocksRandomnessOrIo() throws IOException {
        List<Path> core;
        try (Stream<Path> files = Files.list(Path.of("src/main/java/dev/parallax/ringpaxos"))) {
            core = files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> !DRIVERS.contains(p.getFileName().toString()))
                    .collect(Collectors.toList());
        }
        assertThat(core).extracting(p -> p.getFileName().toString())
                .contains("RingPaxosCore.java", "RingEngine.java", "UnicastPath.java", "RingAcceptor.java",
                        "RingLearner.java", "PhaseOne.java", "OwnProposals.java", "ValueCache.java");
        for (Path file : core) {
            List<String> lines = Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                String code = lines.get(i).replaceAll("//.*$", "");
                if (code.trim().startsWith("*") || code.trim().startsWith("/*")) {
                    continue;
                }
                assertThat(FORBIDDEN.matcher(code).find())
                        .as("%s:%d uses a forbidden API: %s", file.getFileName(), i + 1, code.trim())
                        .isFalse();
            }
        }
    }

    @Test
    @DisplayName("determinism: the same script gives the same trace, failures and re-formation included")
    void sameScriptSameTrace() {
        assertThat(script()).isEqualTo(script());
    }

    private static List<String> script() {
        RingCluster c = new RingCluster(RingCluster.uRing(5));
        c.start();
        c.propose(3, batch("a"));
        c.deliverAll(1000);
        c.isolate(0);
        c.settle(100, 10);
        c.propose(4, batch("b"));
        c.deliverAll(1000);
        c.heal();
        c.settle(200, 10);
        c.tick(MS);
        return new ArrayList<>(c.trace());
    }
}
