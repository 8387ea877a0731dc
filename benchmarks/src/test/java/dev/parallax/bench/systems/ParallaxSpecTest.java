package dev.parallax.bench.systems;

import dev.parallax.core.config.Settings;
import dev.parallax.core.runtime.ClusterConfig;
import dev.parallax.core.runtime.ExecutionRegistry;
import dev.parallax.core.runtime.OrderingRegistry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link ParallaxSpec}: the names it accepts, the checks across keys, and the cluster file it renders. */
class ParallaxSpecTest {

    /**
     * The cluster file {@code spec} renders for three-or-more local members (data under
     * {@code /tmp/work/data}), read back as properties by the library's reader: it accepts every
     * key and value.
     */
    static ClusterConfig accepted(ParallaxSpec spec) {
        Map<String, String> deployment = new LinkedHashMap<>();
        StringBuilder members = new StringBuilder();
        for (int i = 0; i < spec.replicas(); i++) {
            members.append(i == 0 ? "" : ",").append(i).append("=127.0.0.1:").append(7000 + i);
        }
        deployment.put("members", members.toString());
        if (spec.durable()) {
            deployment.put("data.dir", "/tmp/work/data");
        }
        return ClusterConfig.of(Settings.of(read(spec.clusterFile(deployment)), null));
    }

    private static Properties read(String text) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }

    @Test
    void theDefaultSpecRendersTheKeyValueStoreUnderMultiPaxosOnePlainKeyValueALine() {
        ParallaxSpec spec = ParallaxSpec.of(3);
        Map<String, String> deployment = new LinkedHashMap<>();
        deployment.put("members", "0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002");
        deployment.put("data.dir", "/tmp/work/data");
        String text = spec.clusterFile(deployment);
        assertThat(text.lines().filter(l -> !l.startsWith("#"))).containsExactly("service=kv", "ordering=multi-paxos",
                "execution=sequential", "log.sync=none", "members=0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002",
                "data.dir=/tmp/work/data");
        assertThat(accepted(spec).ordering().name()).isEqualTo("multi-paxos");
        assertThat(spec.parallel()).isFalse();
        assertThat(spec.routesByKey()).isFalse();
        assertThat(spec.groups()).isEqualTo(1);
    }

    @Test
    @DisplayName("every parallax system and every volery-P writes a cluster file the library's reader accepts")
    void everySystemsSpecIsAccepted() {
        for (Systems.Entry e : Systems.all()) {
            BenchSystem system = e.factory().get();
            if (system instanceof ParallaxSystem parallax) {
                assertThat(accepted(parallax.spec())).as(e.name()).isNotNull();
                assertThat(accepted(parallax.tls(false).spec().withSettings(Map.of("threads", "compact")))).as(e.name()).isNotNull();
            } else if (system instanceof VolerySystem volery) {
                ParallaxSpec spec = volery.spec();
                assertThat(accepted(spec).settings().raw("service")).as(e.name()).contains("volery");
                assertThat(spec.partitioned()).isTrue();
            }
        }
    }

    @Test
    void namesAreTheRegisteredOnesAndAnUnknownOneIsRefusedNamingThem() {
        assertThat(ParallaxSpec.orderings()).first().isEqualTo("multi-paxos");
        assertThat(ParallaxSpec.orderings()).containsExactlyInAnyOrderElementsOf(OrderingRegistry.orderings().keySet());
        assertThat(ParallaxSpec.executions()).first().isEqualTo("sequential");
        assertThat(ParallaxSpec.executions()).containsAll(ExecutionRegistry.executions().keySet()).contains("s-smr");
        assertThatThrownBy(() -> ParallaxSpec.of(3).withOrdering("raft")).hasMessageContaining("ordering must be one of")
                .hasMessageContaining("multi-ring");
        assertThatThrownBy(() -> ParallaxSpec.of(3).withExecution("fast", 0)).hasMessageContaining("execution must be one of")
                .hasMessageContaining("early-ws-opt").hasMessageContaining("s-smr");
        assertThat(ParallaxSpec.of(3).withOrdering(" S-Paxos ").ordering()).isEqualTo("s-paxos");
        assertThatThrownBy(() -> new ParallaxSpec("multi-paxos", "sequential", 0, 3, "kv", "sometimes", false, Map.of()))
                .hasMessageContaining("none, every-batch or memory");
        assertThatThrownBy(() -> new ParallaxSpec("multi-paxos", "sequential", 0, 3, "redis", "none", false, Map.of()))
                .hasMessageContaining("service must be kv or volery");
        assertThatThrownBy(() -> ParallaxSpec.of(0)).hasMessageContaining("replicas");
    }

    @Test
    @DisplayName("the combinations the replicas refuse are refused here, naming the keys")
    void combinationsTheReplicasRefuseAreRefused() {
        assertThatThrownBy(() -> ParallaxSpec.of(3).withExecution("p-smr", 0))
                .hasMessageContaining("execution=p-smr needs an ordering with groups").hasMessageContaining("multi-ring");
        ParallaxSpec rings = ParallaxSpec.of(3).withOrdering("multi-ring").withSettings(Map.of("multiring.rings", "3"));
        assertThat(rings.withExecution("p-smr", 0).workers()).isEqualTo(3);
        assertThat(rings.withExecution("p-smr", 3).workers()).isEqualTo(3);
        assertThatThrownBy(() -> rings.withExecution("p-smr", 2)).hasMessageContaining("execution.threads=2 must equal multiring.rings=3");
        assertThatThrownBy(() -> ParallaxSpec.of(3).withExecution("s-smr", 0)).hasMessageContaining("needs ordering=multi-ring");
        assertThatThrownBy(() -> ParallaxSpec.of(3).with(Map.of("service", "volery")))
                .hasMessageContaining("service=volery runs with execution=s-smr");
        assertThatThrownBy(() -> ParallaxSpec.of(3).withSettings(Map.of("ordering", "s-paxos")))
                .hasMessageContaining("ordering is not an extra setting");
        assertThatThrownBy(() -> ParallaxSpec.of(3).withSettings(Map.of("tls.ca", "/ca.pem"))).hasMessageContaining("tls.ca");
    }

    @Test
    void keysGoToTheirFieldsAndTheRestToTheSettings() {
        ParallaxSpec spec = ParallaxSpec.of(3).with(Map.of("ordering", "multicast", "execution", "p-smr",
                "execution.threads", "2", "threads", "staged", "log.sync", "every-batch"));
        assertThat(spec.ordering()).isEqualTo("multicast");
        assertThat(spec.execution()).isEqualTo("p-smr");
        assertThat(spec.executionThreads()).isEqualTo(2);
        assertThat(spec.logSync()).isEqualTo("every-batch");
        assertThat(spec.settings()).containsExactly(Map.entry("threads", "staged"));
        assertThat(spec.keys()).containsEntry("execution.threads", "2").containsEntry("log.sync", "every-batch");
        assertThatThrownBy(() -> ParallaxSpec.of(3).with(Map.of("execution.threads", "two")))
                .hasMessageContaining("execution.threads is not a whole number");
    }

    @Test
    void theFileNeedsWhatOnlyTheMachineKnowsAndNoneOfTheSpecsKeys() {
        ParallaxSpec memory = new ParallaxSpec("multi-paxos", "sequential", 0, 1, "kv", "memory", false, Map.of());
        assertThat(memory.durable()).isFalse();
        assertThat(memory.clusterFile(Map.of("members", "0=127.0.0.1:7000"))).doesNotContain("log.sync").doesNotContain("data.dir");
        assertThatThrownBy(() -> memory.clusterFile(Map.of())).hasMessageContaining("must set members");
        assertThatThrownBy(() -> ParallaxSpec.of(1).clusterFile(Map.of("members", "0=127.0.0.1:7000")))
                .hasMessageContaining("must set data.dir");
        assertThatThrownBy(() -> memory.withTls(true).clusterFile(Map.of("members", "0=127.0.0.1:7000")))
                .hasMessageContaining("must set tls.ca");
        assertThatThrownBy(() -> memory.clusterFile(Map.of("members", "0=127.0.0.1:7000", "ordering", "u-ring")))
                .hasMessageContaining("the deployment sets ordering");
        String text = memory.withSettings(Map.of("wait", "park")).clusterFile(Map.of("members", "0=127.0.0.1:7000",
                "data.dir", "C:\\parallax\\data"));
        assertThat(read(text)).containsEntry("data.dir", "C:\\parallax\\data").containsEntry("wait", "park");
        assertThatThrownBy(() -> memory.clusterFile(Map.of("members", "0=127.0.0.1:7000\nordering=u-ring")))
                .hasMessageContaining("not a cluster-file key and value");
    }
}
