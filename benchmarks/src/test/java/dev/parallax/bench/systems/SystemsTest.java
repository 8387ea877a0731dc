package dev.parallax.bench.systems;

import dev.parallax.core.runtime.ClusterConfig;
import dev.parallax.ringpaxos.multiring.MultiRingKeys;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The systems {@code ./parallax bench} knows; the S-Paxos ones run S-Paxos whatever {@code --ordering} says. */
class SystemsTest {

    @Test
    void theSPaxosSystemsAreListedNextToMultiPaxosOnesAndEachCreatesItsNamesake() {
        assertThat(Systems.all()).extracting(Systems.Entry::name).containsSubsequence("parallax-none", "parallax-every-batch",
                "parallax-memory", "parallax-spaxos-none", "parallax-spaxos-every-batch", "ratis");
        for (Systems.Entry e : Systems.all()) {
            assertThat(Systems.create(e.name()).name()).isEqualTo(e.name());
        }
    }

    @Test
    @DisplayName("seed 002 (S-Paxos): a system's fixed ordering wins over --ordering, with natural batching for both layers")
    void aFixedOrderingWinsOverTheRuntimeSettingAndItsThroughputSettingsAreRecorded() {
        ParallaxSystem spaxos = (ParallaxSystem) Systems.create("parallax-spaxos-every-batch");
        spaxos.runtime(Map.of("ordering", "multi-paxos", "threads", "staged"));
        assertThat(spaxos.settings()).containsEntry("ordering", "s-paxos").containsEntry("threads", "staged")
                .containsEntry("log.sync", "every-batch").containsEntry("spaxos.batch.bytes", "16384")
                .containsEntry("spaxos.eager.below", "1").containsEntry("paxos.eager.below", "1");
        ParallaxSystem plain = (ParallaxSystem) Systems.create("parallax-none");
        assertThat(plain.settings()).containsEntry("ordering", "multi-paxos");
        assertThat(plain.runtime(Map.of("ordering", "s-paxos")).settings()).containsEntry("ordering", "s-paxos");
        assertThat(new ParallaxSystem("memory", "s-paxos").tls(true).name()).isEqualTo("parallax-spaxos-memory-tls");
    }

    @Test
    @DisplayName("seed 003 (Ring Paxos) ch. 3: the ring systems run U-Ring / M-Ring at 3 and 5 replicas next to "
            + "Multi-Paxos at 5, "
            + "with ring.batch.bytes 8000 and ring.eager.below 1")
    void theRingSystemsRunTheirOrderingAtTheirClusterSize() {
        assertThat(Systems.all()).extracting(Systems.Entry::name).contains("parallax-uring-none", "parallax-mring-none",
                "parallax-uring-every-batch", "parallax-mring-every-batch", "parallax-n5-none", "parallax-uring-n5-none",
                "parallax-mring-n5-none");
        ParallaxSystem uring = (ParallaxSystem) Systems.create("parallax-uring-none");
        uring.runtime(Map.of("ordering", "multi-paxos"));
        assertThat(uring.replicas()).isEqualTo(3);
        assertThat(uring.settings()).containsEntry("ordering", "u-ring").containsEntry("replicas", "3")
                .containsEntry("ring.batch.bytes", "8000").containsEntry("ring.eager.below", "1");
        ParallaxSystem mring5 = (ParallaxSystem) Systems.create("parallax-mring-n5-none");
        assertThat(mring5.replicas()).isEqualTo(5);
        assertThat(mring5.settings()).containsEntry("ordering", "m-ring").containsEntry("replicas", "5");
        ParallaxSystem paxos5 = (ParallaxSystem) Systems.create("parallax-n5-none");
        assertThat(paxos5.replicas()).isEqualTo(5);
        assertThat(paxos5.settings()).containsEntry("ordering", "multi-paxos");
        assertThat(((ParallaxSystem) Systems.create("parallax-mring-every-batch")).settings()).containsEntry("log.sync", "every-batch");
        assertThatThrownBy(() -> new ParallaxSystem("none", null, 0)).hasMessageContaining("replicas");
    }

    @Test
    @DisplayName("seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5: parallax-multiring-1/2/3 run Multi-Ring over k = 1, 2, 3 "
            + "M-Ring rings at three replicas next to the M-Ring systems, whatever --ordering says")
    void theMultiRingSystemsRunKRingsAtThreeReplicas() {
        assertThat(Systems.all()).extracting(Systems.Entry::name).containsSubsequence("parallax-mring-none",
                "parallax-multiring-1", "parallax-multiring-2", "parallax-multiring-3", "ratis");
        for (int k = 1; k <= 3; k++) {
            ParallaxSystem multi = (ParallaxSystem) Systems.create("parallax-multiring-" + k);
            multi.runtime(Map.of("ordering", "multi-paxos", "threads", "staged"));
            assertThat(multi.name()).isEqualTo("parallax-multiring-" + k);
            assertThat(multi.replicas()).isEqualTo(3);
            assertThat(multi.settings()).containsEntry("ordering", "multi-ring").containsEntry("multiring.rings", Integer.toString(k))
                    .containsEntry("replicas", "3").containsEntry("log.sync", "none").containsEntry("threads", "staged")
                    .containsEntry("ring.batch.bytes", "8000").containsEntry("ring.eager.below", "1");
        }
        assertThat(ParallaxSystem.multiRing(2).tls(true).name()).isEqualTo("parallax-multiring-2-tls");
        ParallaxSystem d1 = (ParallaxSystem) Systems.create("parallax-multiring-2-d1");
        assertThat(d1.name()).isEqualTo("parallax-multiring-2-d1");
        assertThat(d1.settings()).containsEntry("ordering", "multi-ring").containsEntry("multiring.rings", "2")
                .containsEntry("ring.delta.ms", "1");
        assertThat(((ParallaxSystem) Systems.create("parallax-multiring-2-m8")).settings()).containsEntry("multiring.m", "8");
        assertThat(((ParallaxSystem) Systems.create("parallax-multiring-2-lambda200")).settings()).containsEntry("ring.lambda", "200");
        assertThat(((ParallaxSystem) Systems.create("parallax-multiring-2-demand")).settings()).containsEntry("ring.skip.demand", "on");
        ParallaxSystem spec = (ParallaxSystem) Systems.create("parallax-mring-spec");
        assertThat(spec.name()).isEqualTo("parallax-mring-spec");
        assertThat(spec.settings()).containsEntry("ordering", "m-ring").containsEntry("mring.speculation", "on");
        assertThat(((ParallaxSystem) Systems.create("parallax-lease-none")).settings()).containsEntry("paxos.read.lease.ms", "400");
        assertThatThrownBy(() -> ParallaxSystem.multiRing(0)).hasMessageContaining("rings must be 1..63");
    }

    @Test
    @DisplayName("seed 004 (S-SMR) §IV: parallax-ssmr-1/2 split the store into P partitions of three replicas "
            + "under execution=s-smr over one U-Ring ring per partition, whatever --ordering and --execution say")
    void theSSmrSystemsSplitTheStoreIntoPartitionsOfThreeReplicas() {
        assertThat(Systems.all()).extracting(Systems.Entry::name).containsSubsequence("parallax-psmr-multicast-2",
                "parallax-ssmr-1", "parallax-ssmr-2");
        for (int p = 1; p <= 2; p++) {
            ParallaxSystem ssmr = (ParallaxSystem) Systems.create("parallax-ssmr-" + p);
            ssmr.runtime(Map.of("ordering", "multi-paxos", "execution", "p-smr", "execution.threads", "5"));
            assertThat(ssmr.name()).isEqualTo("parallax-ssmr-" + p);
            assertThat(ssmr.replicas()).as("three replicas per partition").isEqualTo(3 * p);
            assertThat(ssmr.settings()).containsEntry("ordering", "multi-ring").containsEntry("multiring.rings", Integer.toString(p))
                    .containsEntry("multiring.kind", "u-ring").containsEntry("execution", "s-smr").containsEntry("log.sync", "none");
            assertThat(ssmr.settings().get("partitions")).startsWith(p + " (3 replicas each");
            assertThat(ssmr.replicaJvm()).as("the heap of three servers shared by 3P JVMs")
                    .contains("-Xmx" + (p == 1 ? "2g" : "1g"));
            // The spec: the KV store partitioned by S-SMR, and the cluster file it renders is accepted.
            ParallaxSpec spec = ssmr.spec();
            assertThat(spec.service()).isEqualTo(ParallaxSpec.KV);
            assertThat(spec.execution()).isEqualTo(ParallaxSpec.S_SMR);
            assertThat(spec.ordering()).isEqualTo("multi-ring");
            assertThat(spec.partitioned()).isTrue();
            assertThat(spec.groups()).as("one ring per partition").isEqualTo(p);
            ClusterConfig file = ParallaxSpecTest.accepted(spec);
            assertThat(file.settings().raw("execution")).contains("s-smr");
            assertThat(MultiRingKeys.partitions(file.settings(), 3 * p)).isEqualTo(p);
            assertThat(MultiRingKeys.partitionOf(file.settings(), 3 * p, 3 * p - 1)).isEqualTo(p - 1);
        }
        assertThat(ParallaxSystem.ssmr(2).tls(true).name()).isEqualTo("parallax-ssmr-2-tls");
        assertThatThrownBy(() -> ParallaxSystem.ssmr(4)).hasMessageContaining("partitions must be 1..3");
        assertThat(((ParallaxSystem) Systems.create("parallax-psmr-2")).replicaJvm()).as("other systems keep 2 GiB")
                .contains("-Xmx2g");
    }

    @Test
    @DisplayName("seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6: parallax-psmr-1/2/3 run Multi-Ring over k rings "
            + "with execution=p-smr on k workers next to parallax-multiring-k, whatever --ordering and --execution say")
    void thePSmrSystemsRunPSmrOverKRingsWithKWorkers() throws Exception {
        assertThat(Systems.all()).extracting(Systems.Entry::name).containsSubsequence("parallax-multiring-1",
                "parallax-multiring-2", "parallax-multiring-3", "parallax-psmr-1", "parallax-psmr-2", "parallax-psmr-3", "ratis");
        for (int k = 1; k <= 3; k++) {
            ParallaxSystem psmr = (ParallaxSystem) Systems.create("parallax-psmr-" + k);
            psmr.runtime(Map.of("ordering", "multi-paxos", "execution", "early-ws-opt", "execution.threads", "5",
                    "threads", "staged"));
            assertThat(psmr.name()).isEqualTo("parallax-psmr-" + k);
            assertThat(psmr.replicas()).isEqualTo(3);
            assertThat(psmr.settings()).containsEntry("ordering", "multi-ring").containsEntry("multiring.rings", Integer.toString(k))
                    .containsEntry("execution", "p-smr, " + k + " workers, one per group").containsEntry("threads", "staged")
                    .containsEntry("log.sync", "none").containsEntry("ring.batch.bytes", "8000");
            // The spec: p-smr over multi-ring with one worker per ring, the clients routing by key over the rings.
            ParallaxSpec spec = psmr.spec();
            assertThat(spec.ordering()).isEqualTo("multi-ring");
            assertThat(spec.execution()).isEqualTo(ParallaxSpec.P_SMR);
            assertThat(spec.oneWorkerPerGroup()).isTrue();
            assertThat(spec.groups()).isEqualTo(k);
            assertThat(spec.workers()).isEqualTo(k);
            assertThat(spec.routesByKey()).isTrue();
            ClusterConfig file = ParallaxSpecTest.accepted(spec);
            assertThat(file.settings().raw("execution.threads")).contains(Integer.toString(k));
            assertThat(file.ordering().groups(file.orderingContext(false))).isEqualTo(k);
        }
        assertThat(ParallaxSystem.psmr(2).tls(true).name()).isEqualTo("parallax-psmr-2-tls");
        assertThatThrownBy(() -> ParallaxSystem.psmr(64)).hasMessageContaining("rings must be 1..63");
        // --execution p-smr on a multi-ring system without a fixed executor: one worker per ring by default.
        assertThat(ParallaxSystem.multiRing(3).runtime(Map.of("execution", "p-smr")).settings())
                .containsEntry("execution", "p-smr, 3 workers, one per group");
    }

    @Test
    @DisplayName("seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5-6: parallax-multicast-2 runs the reference multicast "
            + "over two groups (sequential) and parallax-psmr-multicast-2 P-SMR over it with two workers, next to the Multi-Ring "
            + "systems, whatever --ordering and --execution say")
    void theMulticastSystemsRunTheReferenceMulticastOverTwoGroups() {
        assertThat(Systems.all()).extracting(Systems.Entry::name).containsSubsequence("parallax-psmr-1", "parallax-psmr-2",
                "parallax-psmr-3", "parallax-multicast-2", "parallax-psmr-multicast-2", "ratis");
        ParallaxSystem multicast = (ParallaxSystem) Systems.create("parallax-multicast-2");
        multicast.runtime(Map.of("ordering", "multi-ring", "threads", "staged"));
        assertThat(multicast.name()).isEqualTo("parallax-multicast-2");
        assertThat(multicast.replicas()).isEqualTo(3);
        assertThat(multicast.settings()).containsEntry("ordering", "multicast").containsEntry("multicast.groups", "2")
                .containsEntry("execution", "sequential").containsEntry("threads", "staged").containsEntry("log.sync", "none")
                .containsEntry("paxos.batch.bytes", "16384").containsEntry("paxos.eager.below", "1");
        ParallaxSpec sequential = multicast.spec();
        assertThat(sequential.ordering()).isEqualTo("multicast");
        assertThat(sequential.groups()).isEqualTo(2);
        assertThat(sequential.routesByKey()).as("the clients route by key").isTrue();
        assertThat(sequential.oneWorkerPerGroup()).as("sequential: the store in one partition").isFalse();
        assertThat(ParallaxSpecTest.accepted(sequential).ordering().name()).isEqualTo("multicast");
        // --execution p-smr on the multicast system without a fixed executor: one worker per group by default.
        assertThat(ParallaxSystem.multicast(3).runtime(Map.of("execution", "p-smr")).settings())
                .containsEntry("execution", "p-smr, 3 workers, one per group");

        ParallaxSystem psmr = (ParallaxSystem) Systems.create("parallax-psmr-multicast-2");
        psmr.runtime(Map.of("ordering", "multi-paxos", "execution", "early-ws-opt", "execution.threads", "5"));
        assertThat(psmr.name()).isEqualTo("parallax-psmr-multicast-2");
        assertThat(psmr.settings()).containsEntry("ordering", "multicast").containsEntry("multicast.groups", "2")
                .containsEntry("execution", "p-smr, 2 workers, one per group");
        ParallaxSpec spec = psmr.spec();
        assertThat(spec.execution()).isEqualTo(ParallaxSpec.P_SMR);
        assertThat(spec.workers()).isEqualTo(2);
        assertThat(spec.groups()).as("the clients' routing and the replicas' store").isEqualTo(2);
        assertThat(ParallaxSpecTest.accepted(spec).settings().raw("multicast.groups")).contains("2");
        assertThat(ParallaxSystem.psmrMulticast(2).tls(true).name()).isEqualTo("parallax-psmr-multicast-2-tls");
        assertThatThrownBy(() -> ParallaxSystem.multicast(17)).hasMessageContaining("groups must be 1..16");
        assertThatThrownBy(() -> ParallaxSystem.psmrMulticast(0)).hasMessageContaining("groups must be 1..16");
    }

    @Test
    @DisplayName("seed 004 (S-SMR / Eyrie / Volery) §VI: volery-1/2/4 next to zookeeper, both ZooKeeper-API systems "
            + "running the same workload")
    void theVolerySystemsStandNextToZooKeeper() {
        assertThat(Systems.all()).extracting(Systems.Entry::name).containsSubsequence("zookeeper", "zookeeper-nosync",
                "volery-1", "volery-2", "volery-4");
        for (int p : new int[] {1, 2, 4}) {
            VolerySystem v = (VolerySystem) Systems.create("volery-" + p);
            assertThat(v.partitions()).isEqualTo(p);
            assertThat(v.replicas()).isEqualTo(3 * p);
        }
        dev.parallax.bench.systems.zookeeper.ZkWorkload tenPercent = dev.parallax.bench.systems.zookeeper.ZkWorkload.globalPercent(10);
        assertThat(((dev.parallax.bench.systems.zookeeper.ZooKeeperApiSystem) Systems.create("zookeeper")).workload(tenPercent)
                .name()).isEqualTo("zookeeper-g10");
        assertThat(((dev.parallax.bench.systems.zookeeper.ZooKeeperApiSystem) Systems.create("zookeeper")).settings().get("workload"))
                .isEqualTo(((VolerySystem) Systems.create("volery-2")).settings().get("workload"));
    }

    @Test
    void unknownSystemsAreRejectedNamingTheKnownOnes() {
        assertThatThrownBy(() -> Systems.create("parallax-spaxos")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("parallax-spaxos-none").hasMessageContaining("parallax-spaxos-every-batch");
    }
}
