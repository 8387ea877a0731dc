package dev.parallax.examples.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ServiceOptions}, the options {@code parallax demo} and {@code chaos} share: what a
 * partitioned run is (seed 004 (S-SMR) §IV: {@code --execution s-smr} or {@code --service volery})
 * and what cannot run together, refused with the reason (exit 2) before anything starts. Parses
 * the command lines only; no process is started.
 */
class ServiceOptionsTest {

    private static DemoCommand demo(String... args) {
        DemoCommand demo = new DemoCommand();
        new CommandLine(demo).parseArgs(args);
        return demo;
    }

    private static ChaosCommand chaos(String... args) {
        ChaosCommand chaos = new ChaosCommand();
        new CommandLine(chaos).parseArgs(args);
        return chaos;
    }

    @Test
    @DisplayName("--execution s-smr makes the key-value run partitioned, P = --partitions or 2; the plain run is not")
    void whatIsPartitioned() {
        DemoCommand ssmr = demo("--execution", "s-smr");
        assertThat(ssmr.refusal()).isNull();
        assertThat(ssmr.service.kvPartitioned(ssmr.runtime)).isTrue();
        assertThat(ssmr.service.partitions()).isEqualTo(ServiceOptions.DEFAULT_PARTITIONS).isEqualTo(2);
        assertThat(ssmr.service.describePartitions()).isEqualTo("2 partitions");
        DemoCommand three = demo("--execution", "s-smr", "--partitions", "3", "--ordering", "multi-ring", "--threads", "compact");
        assertThat(three.refusal()).isNull();
        assertThat(three.service.partitions()).isEqualTo(3);
        assertThat(demo("--execution", "s-smr", "--partitions", "1").service.describePartitions()).isEqualTo("1 partition");
        DemoCommand plain = demo();
        assertThat(plain.refusal()).isNull();
        assertThat(plain.service.partitioned(plain.runtime)).isFalse();
        DemoCommand volery = demo("--service", "volery", "--partitions", "4");
        assertThat(volery.refusal()).isNull();
        assertThat(volery.service.partitioned(volery.runtime)).isTrue();
        assertThat(volery.service.kvPartitioned(volery.runtime)).isFalse();
        assertThat(chaos("--execution", "s-smr", "--partitions", "2").refusal()).isNull();
    }

    @Test
    @DisplayName("the key-value store under s-smr refuses another ordering, --execution-threads, --tls and P out of range")
    void ssmrRefusals() {
        assertThat(demo("--execution", "s-smr", "--ordering", "multicast").refusal())
                .isEqualTo("--execution s-smr runs ordering=multi-ring (a ring per partition and the global ring): drop --ordering multicast");
        assertThat(chaos("--execution", "s-smr", "--ordering", "multi-paxos").refusal()).contains("drop --ordering multi-paxos");
        assertThat(demo("--execution", "s-smr", "--execution-threads", "4").refusal())
                .startsWith("--execution-threads is not for --execution s-smr");
        assertThat(chaos("--execution", "s-smr", "--tls").refusal()).startsWith("--tls is not run with --execution s-smr");
        assertThat(demo("--execution", "s-smr", "--partitions", "0").refusal()).isEqualTo("--partitions must be 1..21, not 0");
        assertThat(chaos("--execution", "s-smr", "--partitions", "22").refusal()).isEqualTo("--partitions must be 1..21, not 22");
        assertThat(chaos("--execution", "s-smr", "--history-clients", "0").refusal())
                .isEqualTo("--history-clients must be at least 1, not 0");
        assertThat(demo("--execution", "s-smr", "--clients", "0").refusal()).isEqualTo("--clients must be at least 1, not 0");
    }

    @Test
    @DisplayName("--partitions without a partitioned run is refused, not ignored; an unknown service too")
    void partitionsNeedAPartitionedRun() {
        assertThat(demo("--partitions", "2").refusal()).startsWith("--partitions is for a partitioned run");
        assertThat(chaos("--ordering", "multi-ring", "--execution", "p-smr", "--partitions", "2").refusal())
                .startsWith("--partitions is for a partitioned run");
        assertThat(demo("--service", "etcd").refusal()).isEqualTo("--service must be kv or volery, not 'etcd'");
        assertThat(demo("--service", "volery", "--execution", "s-smr").refusal())
                .isEqualTo("--service volery runs ordering=multi-ring and execution=s-smr: drop --execution");
    }

    @Test
    @DisplayName("demo --execution s-smr with a refused option exits 2 with the reason on standard error, nothing on standard output")
    void aRefusedRunExitsTwo() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = new CommandLine(new DemoCommand(o, e)).execute("--execution", "s-smr", "--ordering", "s-paxos");
        }
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("drop --ordering s-paxos");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    @DisplayName("demo and chaos --help say how s-smr runs and that --partitions is refused with any other run")
    void helpSaysSo() {
        for (Object command : new Object[]{new DemoCommand(), new ChaosCommand()}) {
            String help = new CommandLine(command).getUsageMessage(CommandLine.Help.Ansi.OFF).replaceAll("\\s+", " ");
            assertThat(help).contains("--execution s-smr").contains("refused with any other run").contains("--partitions=P");
        }
    }
}
