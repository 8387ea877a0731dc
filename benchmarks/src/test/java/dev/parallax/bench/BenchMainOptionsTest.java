package dev.parallax.bench;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code ./parallax bench}'s runtime and TLS options (parsing only: nothing is started). */
class BenchMainOptionsTest {

    @Test
    void theRuntimeOptionsBecomeClusterFileSettings() {
        BenchMain bench = new BenchMain();
        new CommandLine(bench).parseArgs("--sweep", "--execution", "early-ws-opt", "--execution-threads", "2",
                "--threads", "compact", "--ordering", "multi-paxos");
        assertThat(bench.runtime.clusterSettings()).containsExactly(Map.entry("ordering", "multi-paxos"),
                Map.entry("execution", "early-ws-opt"), Map.entry("execution.threads", "2"), Map.entry("threads", "compact"));
        BenchMain plain = new BenchMain();
        new CommandLine(plain).parseArgs("--sweep");
        assertThat(plain.runtime.clusterSettings()).isEmpty();
    }

    @Test
    @org.junit.jupiter.api.DisplayName("the help's --system list names the P-SMR systems, and --execution p-smr is a "
            + "runtime option")
    void theHelpListsThePSmrSystemsAndPSmrIsAnExecution() {
        String usage = new CommandLine(new BenchMain()).getUsageMessage().replaceAll("\\s+", " ");
        assertThat(usage).contains("parallax-multiring-3, parallax-psmr-1, parallax-psmr-2, parallax-psmr-3");
        BenchMain bench = new BenchMain();
        new CommandLine(bench).parseArgs("--system", "parallax-multiring-2", "--execution", "p-smr");
        assertThat(bench.runtime.clusterSettings()).containsExactly(Map.entry("execution", "p-smr"));
    }

    @Test
    void aBadValueIsAUsageErrorNamingTheAcceptedValues() {
        assertThatThrownBy(() -> new CommandLine(new BenchMain()).parseArgs("--execution", "fast"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("execution must be one of sequential, ").hasMessageContaining("late-scheduling")
                .hasMessageContaining("s-smr").hasMessageContaining("got 'fast'");
        assertThatThrownBy(() -> new CommandLine(new BenchMain()).parseArgs("--ordering", "raft"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("ordering must be one of multi-paxos, ").hasMessageContaining("u-ring");
    }

    @Test
    void theRuntimeOptionsAreRejectedForASystemThatIsNotParallax() {
        StringWriter err = new StringWriter();
        int code = new CommandLine(new BenchMain()).setErr(new PrintWriter(err))
                .execute("--system", "echo", "--execution", "early-busy-wait");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("apply to the parallax systems only, not echo");
    }

    @Test
    @org.junit.jupiter.api.DisplayName("--hosts runs the parallax systems only; --cap and --cap-host need --hosts")
    void hostsAreForTheParallaxSystemsAndCapsNeedHosts() {
        StringWriter err = new StringWriter();
        assertThat(new CommandLine(new BenchMain()).setErr(new PrintWriter(err)).execute("--system", "echo", "--hosts"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--hosts runs the parallax systems only, not echo");
        StringWriter compare = new StringWriter();
        assertThat(new CommandLine(new BenchMain()).setErr(new PrintWriter(compare))
                .execute("--compare", "--systems", "parallax-none,jgroups-raft", "--hosts")).isEqualTo(2);
        assertThat(compare.toString()).contains("not jgroups-raft");
        StringWriter cap = new StringWriter();
        assertThat(new CommandLine(new BenchMain()).setErr(new PrintWriter(cap)).execute("--cap", "200")).isEqualTo(2);
        assertThat(cap.toString()).contains("--cap and --cap-host need --hosts");
        BenchMain hetero = new BenchMain();
        new CommandLine(hetero).parseArgs("--hosts", "--cap", "200", "--cap-host", "0=50,2=100");
        assertThat(hetero.capHost).containsEntry(0, 50).containsEntry(2, 100);
    }

    @Test
    void tlsIsForTheParallaxSystemsAndNamesThem() {
        StringWriter err = new StringWriter();
        int code = new CommandLine(new BenchMain()).setErr(new PrintWriter(err)).execute("--system", "echo", "--tls");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("--tls applies to the parallax systems only, not echo");
        dev.parallax.bench.systems.ParallaxSystem tls = new dev.parallax.bench.systems.ParallaxSystem("none").tls(true);
        assertThat(tls.name()).isEqualTo("parallax-none-tls");
        assertThat(tls.settings().get("tls")).startsWith("mutual TLS between replicas");
        assertThat(new dev.parallax.bench.systems.ParallaxSystem("none").settings()).containsEntry("tls", "off");
    }

    @Test
    @org.junit.jupiter.api.DisplayName("--zk-global sets the global share of the ZooKeeper-API systems' workload, "
            + "is refused for other systems and outside 0..100")
    void zkGlobalIsTheWorkloadOfTheZooKeeperApiSystems() {
        BenchMain bench = new BenchMain();
        new CommandLine(bench).parseArgs("--system", "volery-2", "--zk-global", "10");
        assertThat(bench.zkWorkload().globalFraction()).isEqualTo(0.1);
        BenchMain plain = new BenchMain();
        new CommandLine(plain).parseArgs("--system", "zookeeper");
        assertThat(plain.zkWorkload()).isEqualTo(dev.parallax.bench.systems.zookeeper.ZkWorkload.DEFAULT);
        StringWriter err = new StringWriter();
        assertThat(new CommandLine(new BenchMain()).setErr(new PrintWriter(err)).execute("--system", "echo", "--zk-global", "5"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--zk-global applies to the ZooKeeper-API systems (zookeeper, zookeeper-nosync, "
                + "volery-<P>) only, not echo");
        StringWriter range = new StringWriter();
        assertThat(new CommandLine(new BenchMain()).setErr(new PrintWriter(range)).execute("--system", "zookeeper",
                "--zk-global", "150")).isEqualTo(2);
        assertThat(range.toString()).contains("--zk-global must be a percentage, 0..100, not 150");
        assertThat(new CommandLine(new BenchMain()).getUsageMessage()).contains("--zk-global").contains("volery-4");
    }
}
