package dev.parallax.examples.cli;

import dev.parallax.core.stage.ThreadPlacement;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.Callable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code --ordering}, {@code --execution}, {@code --execution-threads} and {@code --threads} on the commands that run replicas. */
class RuntimeOptionsTest {

    @Test
    void replicaDemoAndChaosAcceptTheRuntimeOptions() {
        ReplicaCommand replica = new ReplicaCommand();
        new CommandLine(replica).parseArgs("--config", "c.properties", "--id", "1", "--ordering", "multi-paxos",
                "--execution", "early-busy-wait", "--execution-threads", "3", "--threads", "staged");
        assertThat(replica.runtime.clusterSettings()).containsExactly(java.util.Map.entry("ordering", "multi-paxos"),
                java.util.Map.entry("execution", "early-busy-wait"), java.util.Map.entry("execution.threads", "3"),
                java.util.Map.entry("threads", "staged"));
        assertThat(replica.runtime.threads).isEqualTo(ThreadPlacement.STAGED);

        DemoCommand demo = new DemoCommand();
        new CommandLine(demo).parseArgs("--execution", "LATE-SCHEDULING", "--threads", "compact");
        assertThat(demo.runtime.clusterSettings()).containsOnly(java.util.Map.entry("execution", "late-scheduling"),
                java.util.Map.entry("threads", "compact"));

        ChaosCommand chaos = new ChaosCommand();
        new CommandLine(chaos).parseArgs("--duration", "5s", "--ordering", "multi-paxos");
        assertThat(chaos.runtime.clusterSettings()).containsOnly(java.util.Map.entry("ordering", "multi-paxos"));
    }

    @Test
    @org.junit.jupiter.api.DisplayName("seed 003 (Ring Paxos) ch. 3: replica, demo and chaos accept --ordering u-ring and m-ring")
    void theRingOrderingsAreAccepted() {
        ChaosCommand chaos = new ChaosCommand();
        new CommandLine(chaos).parseArgs("--duration", "5s", "--ordering", "m-ring");
        assertThat(chaos.runtime.clusterSettings()).containsOnly(java.util.Map.entry("ordering", "m-ring"));
        DemoCommand demo = new DemoCommand();
        new CommandLine(demo).parseArgs("--ordering", "U-Ring");
        assertThat(demo.runtime.clusterSettings()).containsOnly(java.util.Map.entry("ordering", "u-ring"));
        ReplicaCommand replica = new ReplicaCommand();
        new CommandLine(replica).parseArgs("--config", "c.properties", "--id", "0", "--ordering", "m-ring");
        assertThat(replica.runtime.clusterSettings()).containsOnly(java.util.Map.entry("ordering", "m-ring"));
    }

    @Test
    @org.junit.jupiter.api.DisplayName("seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5: replica, demo and chaos accept --ordering multi-ring")
    void theMultiRingOrderingIsAccepted() {
        for (Object command : java.util.List.of(new ChaosCommand(), new DemoCommand(), new ReplicaCommand())) {
            CommandLine line = new CommandLine(command);
            if (command instanceof ReplicaCommand) {
                line.parseArgs("--config", "c.properties", "--id", "0", "--ordering", "Multi-Ring");
            } else {
                line.parseArgs("--ordering", "multi-ring");
            }
            RuntimeOptions runtime = command instanceof ChaosCommand c ? c.runtime
                    : command instanceof DemoCommand d ? d.runtime : ((ReplicaCommand) command).runtime;
            assertThat(runtime.clusterSettings()).containsOnly(java.util.Map.entry("ordering", "multi-ring"));
        }
    }

    @Test
    @org.junit.jupiter.api.DisplayName("seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6: replica, demo and chaos accept --execution p-smr")
    void thePSmrExecutionIsAccepted() {
        for (Object command : java.util.List.of(new ChaosCommand(), new DemoCommand(), new ReplicaCommand())) {
            CommandLine line = new CommandLine(command);
            if (command instanceof ReplicaCommand) {
                line.parseArgs("--config", "c.properties", "--id", "0", "--ordering", "multi-ring", "--execution", "P-SMR");
            } else {
                line.parseArgs("--ordering", "multi-ring", "--execution", "p-smr");
            }
            RuntimeOptions runtime = command instanceof ChaosCommand c ? c.runtime
                    : command instanceof DemoCommand d ? d.runtime : ((ReplicaCommand) command).runtime;
            assertThat(runtime.clusterSettings()).containsExactly(java.util.Map.entry("ordering", "multi-ring"),
                    java.util.Map.entry("execution", "p-smr"));
        }
    }

    @Test
    @org.junit.jupiter.api.DisplayName("seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5-6: replica, demo and chaos accept "
            + "--ordering multicast --execution p-smr; the demo's cluster file then runs one worker per group, and its report "
            + "calls the killed replica a stream leader")
    void theMulticastOrderingWithPSmrIsAccepted(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        for (Object command : java.util.List.of(new ChaosCommand(), new DemoCommand(), new ReplicaCommand())) {
            CommandLine line = new CommandLine(command);
            if (command instanceof ReplicaCommand) {
                line.parseArgs("--config", "c.properties", "--id", "0", "--ordering", "MultiCast", "--execution", "p-smr");
            } else {
                line.parseArgs("--ordering", "multicast", "--execution", "p-smr");
            }
            RuntimeOptions runtime = command instanceof ChaosCommand c ? c.runtime
                    : command instanceof DemoCommand d ? d.runtime : ((ReplicaCommand) command).runtime;
            assertThat(runtime.clusterSettings()).containsExactly(java.util.Map.entry("ordering", "multicast"),
                    java.util.Map.entry("execution", "p-smr"));
        }
        // The cluster file the demo writes (nothing started): accepted, two groups, two workers, routed by key.
        DemoCommand demo = new DemoCommand();
        new CommandLine(demo).parseArgs("--ordering", "multicast", "--execution", "p-smr");
        java.util.Properties props = ProcessCluster.localDefaults(dir.resolve("data"), 20_000);
        props.putAll(demo.runtime.clusterSettings());
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, props, false, java.util.List.of())) {
            ClusterFile file = cluster.clusterFile();
            assertThat(file.ordering()).isEqualTo(Orderings.MULTICAST);
            assertThat(file.executionThreads()).isEqualTo(ClusterFile.DEFAULT_MULTICAST_GROUPS);
            assertThat(KvRouting.router(file)).isPresent();
            assertThat(file.describeRuntime(2)).startsWith("ordering multicast, execution p-smr (2 workers, one per group)");
        }
        assertThat(DemoCommand.leaderRole(Orderings.MULTICAST)).isEqualTo("a stream leader");
        assertThat(DemoCommand.leaderRole(Orderings.MULTI_RING)).isEqualTo("a ring coordinator");
        assertThat(DemoCommand.leaderRole(Orderings.MULTI_PAXOS)).isEqualTo("the leader");
    }

    @Test
    @org.junit.jupiter.api.DisplayName("seed 003 ch. 6: demo and chaos with --execution p-smr but no --ordering multi-ring stop "
            + "with the cluster file's error and exit code 2, starting nothing")
    void pSmrWithoutMultiRingStopsTheDemoAndChaosBeforeAnythingStarts(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int code;
        try (java.io.PrintStream o = new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8);
             java.io.PrintStream e = new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8)) {
            code = new CommandLine(new DemoCommand(o, e)).execute("--execution", "p-smr");
        }
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8))
                .contains("execution=p-smr needs an ordering with groups, ordering=multi-ring or multicast, got ordering=multi-paxos");
        assertThat(out.toString(java.nio.charset.StandardCharsets.UTF_8)).doesNotContain("Parallax demo");

        java.io.PrintStream saved = System.err;
        java.io.ByteArrayOutputStream chaosErr = new java.io.ByteArrayOutputStream();
        try (java.io.PrintStream e = new java.io.PrintStream(chaosErr, true, java.nio.charset.StandardCharsets.UTF_8)) {
            System.setErr(e);
            code = new CommandLine(new ChaosCommand()).execute("--dir", dir.toString(), "--ordering", "m-ring",
                    "--execution", "p-smr");
        } finally {
            System.setErr(saved);
        }
        assertThat(code).isEqualTo(2);
        assertThat(chaosErr.toString(java.nio.charset.StandardCharsets.UTF_8))
                .contains("execution=p-smr needs an ordering with groups, ordering=multi-ring or multicast, got ordering=m-ring");
    }

    @Test
    void withoutTheOptionsTheClusterFileDecides() {
        DemoCommand demo = new DemoCommand();
        new CommandLine(demo).parseArgs();
        assertThat(demo.runtime.clusterSettings()).isEmpty();
    }

    @Test
    void aBadValueIsAUsageErrorNamingTheOptionAndTheAcceptedValues() {
        assertThatThrownBy(() -> new CommandLine(new DemoCommand()).parseArgs("--execution", "turbo"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--execution")
                .hasMessageContaining("execution must be one of sequential, late-scheduling, early-barrier, early-busy-wait, "
                        + "early-ws-queue, early-ws-semi-blocked, early-ws-non-blocked, early-ws-opt, p-smr, s-smr; got 'turbo'");
        assertThatThrownBy(() -> new CommandLine(new ChaosCommand()).parseArgs("--ordering", "raft"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--ordering").hasMessageContaining("ordering must be one of multi-paxos, s-paxos, u-ring, m-ring, multi-ring, multicast; got 'raft'");
        assertThatThrownBy(() -> new CommandLine(new ReplicaCommand()).parseArgs("--config", "c", "--id", "0", "--threads", "all"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--threads").hasMessageContaining("threads must be staged, compact or auto, got 'all'");
        assertThatThrownBy(() -> new CommandLine(new DemoCommand()).parseArgs("--execution-threads", "0"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("execution.threads must be >= 1, got 0");
    }

    @Test
    void theExitCodeOfABadValueIsTheUsageErrorCodeAndNothingRuns() {
        StringWriter err = new StringWriter();
        int code = new CommandLine(new DemoCommand()).setErr(new PrintWriter(err)).execute("--execution", "turbo");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("execution must be one of").doesNotContain("Parallax demo");
    }

    @Test
    void theHelpListsTheAcceptedValues() {
        for (Callable<Integer> command : java.util.List.<Callable<Integer>>of(new ReplicaCommand(), new DemoCommand(),
                new ChaosCommand())) {
            String usage = new CommandLine(command).getUsageMessage().replaceAll("\\s+", " ");
            assertThat(usage).contains("--ordering=NAME").contains("multi-paxos")
                    .contains("--execution=NAME").contains("sequential, late-scheduling, early-barrier")
                    .contains("--threads=PLACEMENT").contains("staged, compact, auto")
                    .contains("--execution-threads=N");
        }
    }
}
