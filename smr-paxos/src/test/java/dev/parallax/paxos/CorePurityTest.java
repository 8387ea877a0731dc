package dev.parallax.paxos;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The protocol core is a deterministic step function: none of its classes may touch threads,
 * clocks, randomness, IO or the network. {@link PaxosBroadcast}, the runtime adapter that drives
 * the core from stage threads, and {@link PaxosRuntimeParts}, which publishes its state to other
 * threads, are the classes of the package allowed to; in S-Paxos' package
 * ({@code spaxos}), {@code SPaxosBroadcast} and {@code ExecutionMirror} (the delivery thread's copy).
 */
class CorePurityTest {
    private static final Pattern FORBIDDEN = Pattern.compile(
            "\\b(Thread|Executor\\w*|CompletableFuture|synchronized|volatile|System\\.(nanoTime|currentTimeMillis)"
                    + "|Instant\\.now|LocalDateTime|Random|SplittableRandom|ThreadLocalRandom|java\\.io\\.|java\\.net\\."
                    + "|java\\.nio\\.channels|java\\.nio\\.file|java\\.util\\.concurrent|Clock)\\b");

    @Test
    void coreClassesUseNoThreadsClocksRandomnessOrIo() throws IOException {
        List<String> drivers = List.of("PaxosBroadcast.java", "PaxosRuntimeParts.java", "SPaxosBroadcast.java",
                "ExecutionMirror.java", "PaxosMembershipAdmin.java", "MemberAddressing.java", "DeliveredMembership.java");
        List<Path> core;
        try (Stream<Path> files = Stream.concat(Files.list(Path.of("src/main/java/dev/parallax/paxos")),
                Files.list(Path.of("src/main/java/dev/parallax/paxos/spaxos")))) {
            core = files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> !drivers.contains(p.getFileName().toString()))
                    .collect(Collectors.toList());
        }
        assertThat(core).extracting(p -> p.getFileName().toString())
                .contains("MultiPaxosCore.java", "Acceptor.java", "Learner.java", "Proposer.java", "ViewMonitor.java", "CatchUp.java",
                        "SPaxosCore.java", "DisseminationCore.java", "Execution.java", "LeaderProposals.java");
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
}
