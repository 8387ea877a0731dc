package dev.parallax.examples.cli;

import dev.parallax.scheduler.ServiceClasses;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.config.WaitMode;
import dev.parallax.core.spi.Executor;
import dev.parallax.core.stage.ThreadPlacement;
import dev.parallax.paxos.PaxosConfig;
import dev.parallax.paxos.spaxos.SPaxosConfig;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.multiring.MultiRingConfig;
import dev.parallax.ringpaxos.multiring.MultiRingTopology;
import dev.parallax.scheduler.psmr.PsmrExecutor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClusterFileTest {

    private static Path write(Path dir, String text) throws IOException {
        Path f = dir.resolve("cluster.properties");
        Files.writeString(f, text);
        return f;
    }

    @Test
    void aFullFileConfiguresReplicaAndProtocol(@TempDir Path dir) throws IOException {
        ClusterFile f = ClusterFile.load(write(dir, """
                members=0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002
                clients=0=127.0.0.1:8000,1=127.0.0.1:8001,2=127.0.0.1:8002
                redis=0=127.0.0.1:6379,1=127.0.0.1:6380,2=127.0.0.1:6381
                data.dir=/var/lib/parallax
                client.io.threads=3
                replica.io.threads=4
                wait=park
                paxos.window=35
                paxos.batch.bytes=8000
                paxos.eager.below=2
                paxos.heartbeat.ms=20
                paxos.suspect.ms=200
                """));
        ReplicaConfig r = f.replica(2);
        assertThat(r.self().port()).isEqualTo(7002);
        assertThat(r.clientMembers().member(2).port()).isEqualTo(8002);
        assertThat(r.clientIoThreads()).isEqualTo(3);
        assertThat(r.replicaIoThreads()).isEqualTo(4);
        assertThat(ClusterFile.load(write(dir, "members=0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002\n"))
                .replica(0).replicaIoThreads()).as("default: one per peer").isEqualTo(2);
        assertThat(r.waitMode()).isEqualTo(WaitMode.PARK);
        assertThat(r.dataDirectory()).contains(Path.of("/var/lib/parallax/replica-2"));
        assertThat(f.paxos().window()).isEqualTo(35);
        assertThat(f.paxos().batchBytes()).isEqualTo(8000);
        assertThat(f.paxos().eagerBelow()).isEqualTo(2);
        assertThat(f.paxos().suspectNanos()).isEqualTo(200_000_000L);
        assertThat(f.redis().orElseThrow().member(1).port()).isEqualTo(6380);
    }

    @Test
    void defaultsNeedOnlyTheMembers(@TempDir Path dir) throws IOException {
        ClusterFile f = ClusterFile.load(write(dir, "members=0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002\n"));
        assertThat(f.replica(0).clientMembers().member(0).port()).isEqualTo(8000);
        assertThat(f.paxos().window()).isEqualTo(10);
        assertThat(f.paxos().eagerBelow()).isEqualTo(10);
        assertThat(f.paxos().catchUpMaxBytes()).isEqualTo(PaxosConfig.DEFAULT_CATCH_UP_MAX_BYTES);
        assertThat(f.redis()).isEmpty();
    }

    @Test
    void theRestartHoldIsParsed(@TempDir Path dir) throws IOException {
        String members = "members=0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002\n";
        assertThat(ClusterFile.load(write(dir, members + "paxos.restart.hold.ms=500\n")).paxos().restartHoldNanos())
                .isEqualTo(500_000_000L);
        assertThat(ClusterFile.load(write(dir, members)).paxos().restartHoldNanos()).isEqualTo(2_000_000_000L);
    }

    @Test
    void theCatchUpByteBoundIsParsedAndKeptUnderTheFrameLimit(@TempDir Path dir) throws IOException {
        String members = "members=0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002\n";
        assertThat(ClusterFile.load(write(dir, members + "paxos.catchup.max.bytes=4194304\n")).paxos().catchUpMaxBytes())
                .isEqualTo(4 << 20);
        assertThatThrownBy(() -> ClusterFile.load(write(dir, members + "paxos.catchup.max.bytes=16777216\n")).paxos())
                .hasMessageContaining("paxos.catchup.max.bytes (16777216) must be at most half of max.frame.bytes (16777216)");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, members + "paxos.catchup.max.bytes=0\n")).paxos())
                .hasMessageContaining("paxos.catchup.max.bytes must be > 0, got 0");
    }

    @Test
    void durabilityAndSnapshotKeysAreParsed(@TempDir Path dir) throws IOException {
        ClusterFile f = ClusterFile.load(write(dir, """
                members=0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002
                data.dir=/var/lib/parallax
                log.sync=periodic
                snapshot.every=500
                snapshot.log.bytes=1048576
                snapshot.transfer.timeout.ms=2500
                snapshot.max.bytes=8589934592
                """));
        ReplicaConfig r = f.replica(1);
        assertThat(r.logSync()).isEqualTo(dev.parallax.core.spi.SyncPolicy.PERIODIC);
        assertThat(f.snapshotEvery()).contains(500L);
        assertThat(r.snapshotLogBytes()).isEqualTo(1L << 20);
        assertThat(r.snapshotTransferTimeout()).isEqualTo(Duration.ofMillis(2500));
        assertThat(r.snapshotMaxBytes()).isEqualTo(8L << 30);
    }

    @Test
    void durabilityAndSnapshotDefaultsApplyWhenTheKeysAreAbsent(@TempDir Path dir) throws IOException {
        ClusterFile f = ClusterFile.load(write(dir, "members=0=127.0.0.1:7000\n"));
        ReplicaConfig r = f.replica(0);
        assertThat(r.logSync()).isEqualTo(dev.parallax.core.spi.SyncPolicy.EVERY_BATCH);
        assertThat(f.snapshotEvery()).isEmpty();
        assertThat(r.snapshotLogBytes()).isEqualTo(ReplicaConfig.DEFAULT_SNAPSHOT_LOG_BYTES);
        assertThat(r.snapshotTransferTimeout()).isEqualTo(ReplicaConfig.DEFAULT_SNAPSHOT_TRANSFER_TIMEOUT);
        assertThat(r.snapshotMaxBytes()).isEqualTo(ReplicaConfig.DEFAULT_SNAPSHOT_MAX_BYTES);
    }

    @Test
    void badDurabilityAndSnapshotValuesAreNamed(@TempDir Path dir) throws IOException {
        String members = "members=0=127.0.0.1:7000\n";
        assertThatThrownBy(() -> ClusterFile.load(write(dir, members + "log.sync=sometimes\n")).replica(0))
                .hasMessageContaining("log.sync must be every-batch, periodic or none");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, members + "snapshot.every=0\n")).snapshotEvery())
                .hasMessageContaining("snapshot.every must be > 0, got 0");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, members + "snapshot.every=often\n")).snapshotEvery())
                .hasMessageContaining("snapshot.every is not a whole number");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, members + "snapshot.log.bytes=0\n")).replica(0))
                .hasMessageContaining("snapshot.log.bytes must be > 0, got 0");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, members + "snapshot.log.bytes=1MB\n")).replica(0))
                .hasMessageContaining("snapshot.log.bytes is not a whole number");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, members + "snapshot.transfer.timeout.ms=0\n")).replica(0))
                .hasMessageContaining("snapshot.transfer.timeout.ms must be > 0, got 0 ms");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, members + "snapshot.max.bytes=-1\n")).replica(0))
                .hasMessageContaining("snapshot.max.bytes must be > 0, got -1");
    }

    @Test
    void theSPaxosKeysConfigureTheDisseminationLayerAndPaxosKeysItsOrderingLayer(@TempDir Path dir) throws IOException {
        ClusterFile f = ClusterFile.load(write(dir, THREE + """
                paxos.window=20
                paxos.suspect.ms=400
                spaxos.batch.bytes=16384
                spaxos.batch.timeout.ms=2
                spaxos.eager.below=1
                spaxos.ids.per.value=32
                spaxos.ack.interval.ms=3
                spaxos.ack.refresh.ms=300
                spaxos.resend.delay.ms=70
                spaxos.max.undecided=256
                spaxos.resend.max.bytes=65536
                """));
        SPaxosConfig s = f.spaxos();
        assertThat(s.members()).isEqualTo(3);
        assertThat(s.batchBytes()).isEqualTo(16384);
        assertThat(s.batchTimeoutNanos()).isEqualTo(2_000_000L);
        assertThat(s.eagerBelow()).isEqualTo(1);
        assertThat(s.idsPerValue()).isEqualTo(32);
        assertThat(s.ackIntervalNanos()).isEqualTo(3_000_000L);
        assertThat(s.ackRefreshNanos()).isEqualTo(300_000_000L);
        assertThat(s.resendDelayNanos()).isEqualTo(70_000_000L);
        assertThat(s.maxUndecidedPerOrigin()).isEqualTo(256);
        assertThat(s.resendMaxBytes()).isEqualTo(65536);
        assertThat(s.paxos().window()).isEqualTo(20);
        assertThat(s.paxos().suspectNanos()).isEqualTo(400_000_000L);
    }

    @Test
    void theSPaxosDefaultsApplyWhenItsKeysAreAbsent(@TempDir Path dir) throws IOException {
        SPaxosConfig s = ClusterFile.load(write(dir, THREE)).spaxos();
        assertThat(s.batchBytes()).isEqualTo(SPaxosConfig.DEFAULT_BATCH_BYTES);
        assertThat(s.eagerBelow()).isEqualTo(SPaxosConfig.DEFAULT_EAGER_BELOW);
        assertThat(s.idsPerValue()).isEqualTo(SPaxosConfig.DEFAULT_IDS_PER_VALUE);
        assertThat(s.maxUndecidedPerOrigin()).isEqualTo(SPaxosConfig.DEFAULT_MAX_UNDECIDED);
        assertThat(s.resendMaxBytes()).isEqualTo(SPaxosConfig.DEFAULT_RESEND_MAX_BYTES);
        assertThat(s.resendDelayNanos()).isEqualTo(50_000_000L);
        assertThat(s.ackIntervalNanos()).isEqualTo(1_000_000L);
        assertThat(s.ackRefreshNanos()).isEqualTo(100_000_000L);
    }

    @Test
    void badSPaxosValuesAreRefusedNamingTheKey(@TempDir Path dir) throws IOException {
        Map<String, String> bad = Map.of(
                "spaxos.batch.bytes=0", "spaxos.batch.bytes",
                "spaxos.batch.timeout.ms=-1", "spaxos.batch.timeout.ms",
                "spaxos.eager.below=0", "spaxos.eager.below",
                "spaxos.ids.per.value=0", "spaxos.ids.per.value",
                "spaxos.resend.delay.ms=0", "spaxos.resend.delay.ms",
                "spaxos.max.undecided=1025", "spaxos.max.undecided",
                "spaxos.resend.max.bytes=-5", "spaxos.resend.max.bytes",
                "spaxos.ack.interval.ms=200", "spaxos.ack.interval.ms must not exceed spaxos.ack.refresh.ms",
                "spaxos.max.undecided=many", "spaxos.max.undecided is not a whole number",
                "spaxos.window=3", "unknown key 'spaxos.window'");
        for (Map.Entry<String, String> e : bad.entrySet()) {
            Path f = write(dir, THREE + e.getKey() + "\n");
            assertThatThrownBy(() -> ClusterFile.load(f)).as(e.getKey()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(f + ": ").hasMessageContaining(e.getValue());
        }
    }

    @Test
    void theRingKeysConfigureRingPaxos(@TempDir Path dir) throws IOException {
        ClusterFile f = ClusterFile.load(write(dir, THREE + """
                ordering=m-ring
                ring.window=16
                ring.batch.bytes=4000
                ring.batch.timeout.ms=2
                ring.eager.below=1
                ring.packet.bytes=16384
                ring.heartbeat.ms=40
                ring.suspect.ms=400
                ring.retransmit.ms=90
                ring.catchup.ms=80
                ring.catchup.max.instances=128
                ring.catchup.max.bytes=65536
                ring.stall.ms=900
                ring.rejoin.backoff.ms=700
                ring.rejoin.lag=32
                ring.max.backlog=512
                ring.max.pending=16
                ring.proposal.retry.ms=600
                ring.restart.hold.ms=1500
                ring.lambda=20000
                ring.delta.ms=3
                mring.group=239.255.9.9
                mring.port=7411
                mring.interface=127.0.0.1
                mring.ttl=2
                mring.packet.bytes=4096
                mring.socket.buffer.bytes=1048576
                mring.window.min=2
                mring.retransmit.ms=15
                mring.retransmit.max.bytes=65536
                mring.fc.threshold=128
                mring.fc.decrease.ms=12
                mring.fc.increase.ms=6
                mring.learner.buffer=2048
                mring.learner.buffer.bytes=33554432
                mring.test.faults=drop=0.02,dup=0.01,reorder=4,seed=7
                """));
        RingConfig r = f.ring(Ring.Kind.M_RING);
        assertThat(r.members()).isEqualTo(3);
        assertThat(r.window()).isEqualTo(16);
        assertThat(r.batchBytes()).isEqualTo(4000);
        assertThat(r.batchTimeoutNanos()).isEqualTo(2_000_000L);
        assertThat(r.eagerBelow()).isEqualTo(1);
        assertThat(r.packetBytes()).isEqualTo(16384);
        assertThat(r.heartbeatNanos()).isEqualTo(40_000_000L);
        assertThat(r.suspectNanos()).isEqualTo(400_000_000L);
        assertThat(r.retransmitNanos()).isEqualTo(90_000_000L);
        assertThat(r.catchUpNanos()).isEqualTo(80_000_000L);
        assertThat(r.catchUpMaxInstances()).isEqualTo(128);
        assertThat(r.catchUpMaxBytes()).isEqualTo(65536);
        assertThat(r.stallNanos()).isEqualTo(900_000_000L);
        assertThat(r.rejoinBackoffNanos()).isEqualTo(700_000_000L);
        assertThat(r.rejoinLag()).isEqualTo(32);
        assertThat(r.maxBacklog()).isEqualTo(512);
        assertThat(r.maxPending()).isEqualTo(16);
        assertThat(r.proposalRetryNanos()).isEqualTo(600_000_000L);
        assertThat(r.restartHoldNanos()).isEqualTo(1_500_000_000L);
        assertThat(r.lambda()).isEqualTo(20_000);
        assertThat(r.skipIntervalNanos()).isEqualTo(3_000_000L);
        assertThat(r.mringGroup()).isEqualTo("239.255.9.9");
        assertThat(r.mringPort()).isEqualTo(7411);
        assertThat(r.mringInterface()).isEqualTo("127.0.0.1");
        assertThat(r.mringTtl()).isEqualTo(2);
        assertThat(r.mringPacketBytes()).isEqualTo(4096);
        assertThat(r.mringSocketBufferBytes()).isEqualTo(1048576);
        assertThat(r.mringWindowMin()).isEqualTo(2);
        assertThat(r.mringRetransmitNanos()).isEqualTo(15_000_000L);
        assertThat(r.mringRetransmitMaxBytes()).isEqualTo(65536);
        assertThat(r.mringFcThreshold()).isEqualTo(128);
        assertThat(r.mringFcDecreaseNanos()).isEqualTo(12_000_000L);
        assertThat(r.mringFcIncreaseNanos()).isEqualTo(6_000_000L);
        assertThat(r.mringLearnerBuffer()).isEqualTo(2048);
        assertThat(r.mringLearnerBufferBytes()).isEqualTo(33554432L);
        assertThat(r.mringTestFaults()).isEqualTo("drop=0.02,dup=0.01,reorder=4,seed=7");
    }

    @Test
    void theRingDefaultsApplyWhenItsKeysAreAbsent(@TempDir Path dir) throws IOException {
        RingConfig r = ClusterFile.load(write(dir, THREE)).ring(Ring.Kind.U_RING);
        assertThat(r.kind()).isEqualTo(Ring.Kind.U_RING);
        assertThat(r.window()).isEqualTo(32);
        assertThat(r.batchBytes()).isEqualTo(8000);
        assertThat(r.eagerBelow()).isEqualTo(2);
        assertThat(r.heartbeatNanos()).isEqualTo(50_000_000L);
        assertThat(r.suspectNanos()).isEqualTo(500_000_000L);
        assertThat(r.maxBacklog()).isEqualTo(1024);
        assertThat(r.mringGroup()).isEqualTo("239.255.80.1");
        assertThat(r.mringPort()).isEqualTo(7400);
        assertThat(r.mringPacketBytes()).isEqualTo(8192);
        assertThat(r.mringTestFaults()).isEmpty();
    }

    @Test
    void badRingValuesAreRefusedNamingTheKey(@TempDir Path dir) throws IOException {
        Map<String, String> bad = new java.util.LinkedHashMap<>();
        bad.put("ring.window=0", "ring.window");
        bad.put("ring.batch.bytes=-1", "ring.batch.bytes");
        bad.put("ring.packet.bytes=100", "ring.packet.bytes");
        bad.put("ring.heartbeat.ms=600", "ring.heartbeat.ms");
        bad.put("ring.retransmit.ms=2000", "ring.retransmit.ms");
        bad.put("ring.max.backlog=4096", "ring.max.backlog");
        bad.put("ring.catchup.max.bytes=999999999", "ring.catchup.max.bytes");
        bad.put("ring.window=many", "ring.window is not a whole number");
        bad.put("mring.port=70000", "mring.port");
        bad.put("mring.ttl=300", "mring.ttl");
        bad.put("mring.packet.bytes=70000", "mring.packet.bytes");
        bad.put("mring.window.min=64", "mring.window.min");
        bad.put("mring.group=10.1.2.3", "mring");
        bad.put("mring.test.faults=drop=2", "mring.test.faults");
        bad.put("mring.learner.buffer.bytes=0", "mring.learner.buffer.bytes");
        bad.put("ring.lambda=-1", "ring.lambda");
        bad.put("ring.lambda=fast", "ring.lambda is not a whole number");
        bad.put("ring.delta.ms=0", "ring.delta.ms");
        bad.put("ring.windw=3", "unknown key 'ring.windw'");
        for (Map.Entry<String, String> e : bad.entrySet()) {
            Path f = write(dir, THREE + "ordering=m-ring\n" + e.getKey() + "\n");
            assertThatThrownBy(() -> ClusterFile.load(f)).as(e.getKey()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(f + ": ").hasMessageContaining(e.getValue());
        }
        // A ring ordering takes any n (majority quorums); another ordering with an even cluster ignores the ring keys.
        assertThat(ClusterFile.load(write(dir, "members=0=a:1,1=a:2\nordering=u-ring\n")).ordering())
                .isEqualTo(Orderings.U_RING);
        assertThat(ClusterFile.load(write(dir, "members=0=a:1,1=a:2\nring.window=8\n")).ordering())
                .isEqualTo(Orderings.MULTI_PAXOS);
    }

    @Test
    @org.junit.jupiter.api.DisplayName("seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5: ordering=multi-ring defaults to k = 2 M-Ring "
            + "rings, M = 1, λ = 20000/s, Δ = 5 ms, ring i on mring.port + i, while a plain ring keeps λ = 0")
    void theMultiRingDefaultsApplyWhenItsKeysAreAbsent(@TempDir Path dir) throws IOException {
        ClusterFile f = ClusterFile.load(write(dir, THREE + "ordering=multi-ring\n"));
        MultiRingConfig m = f.multiRing();
        assertThat(m.rings()).isEqualTo(2);
        assertThat(m.streams()).as("two group rings and the global ring").isEqualTo(3);
        assertThat(m.kind()).isEqualTo(Ring.Kind.M_RING);
        assertThat(m.roundLength()).isEqualTo(1);
        assertThat(m.lambda()).isEqualTo(20_000L);
        assertThat(m.skipInterval()).isEqualTo(Duration.ofMillis(5));
        assertThat(m.members()).isEqualTo(3);
        for (int i = 0; i < 3; i++) {
            assertThat(m.ring(i).mringPort()).isEqualTo(7400 + i);
            assertThat(m.ring(i).lambda()).isEqualTo(20_000L);
        }
        assertThat(f.orderingProtocol().name()).isEqualTo("multi-ring");
        assertThat(f.ring(Ring.Kind.M_RING).lambda()).as("u-ring / m-ring: no skips unless asked").isZero();
    }

    @Test
    void theMultiRingKeysAndTheRingKeysTheyShareAreRead(@TempDir Path dir) throws IOException {
        ClusterFile f = ClusterFile.load(write(dir, THREE + """
                ordering=multi-ring
                multiring.rings=3
                multiring.kind=u-ring
                multiring.m=4
                ring.lambda=5000
                ring.delta.ms=2
                ring.window=16
                ring.heartbeat.ms=40
                """));
        MultiRingConfig m = f.multiRing();
        assertThat(m.rings()).isEqualTo(3);
        assertThat(m.streams()).isEqualTo(4);
        assertThat(m.kind()).isEqualTo(Ring.Kind.U_RING);
        assertThat(m.roundLength()).isEqualTo(4);
        assertThat(m.lambda()).isEqualTo(5000L);
        assertThat(m.skipInterval()).isEqualTo(Duration.ofMillis(2));
        RingConfig ring3 = m.ring(3);
        assertThat(ring3.kind()).isEqualTo(Ring.Kind.U_RING);
        assertThat(ring3.window()).isEqualTo(16);
        assertThat(ring3.heartbeatNanos()).isEqualTo(40_000_000L);
        assertThat(ring3.skipIntervalNanos()).isEqualTo(2_000_000L);
        assertThat(ClusterFile.load(write(dir, THREE + "ordering=multi-ring\nmultiring.kind= m-ring \nmultiring.rings=1\n"))
                .multiRing().streams()).as("one ring: no global ring").isEqualTo(1);
    }

    @Test
    void badMultiRingValuesAreRefusedNamingTheKey(@TempDir Path dir) throws IOException {
        Map<String, String> bad = new java.util.LinkedHashMap<>();
        bad.put("multiring.rings=0", "multiring.rings must be 1..64");
        bad.put("multiring.rings=65", "multiring.rings must be 1..64");
        bad.put("multiring.rings=two", "multiring.rings is not a whole number");
        bad.put("multiring.kind=x-ring", "multiring.kind must be m-ring or u-ring, got 'x-ring'");
        bad.put("multiring.m=0", "multiring.m must be > 0");
        bad.put("multiring.m=-3", "multiring.m must be > 0");
        bad.put("ring.lambda=0", "ring.lambda must be > 0 for multi-ring");
        bad.put("ring.delta.ms=0", "ring.delta.ms");
        bad.put("mring.port=65534", "mring.port");
        bad.put("multiring.ring=2", "unknown key 'multiring.ring'");
        for (Map.Entry<String, String> e : bad.entrySet()) {
            Path f = write(dir, THREE + "ordering=multi-ring\n" + e.getKey() + "\n");
            assertThatThrownBy(() -> ClusterFile.load(f)).as(e.getKey()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(f + ": ").hasMessageContaining(e.getValue());
        }
        // The last ring's port must exist: k = 1 has no global ring, so 65535 itself is fine.
        assertThat(ClusterFile.load(write(dir, THREE + "ordering=multi-ring\nmring.port=65535\nmultiring.rings=1\n"))
                .multiRing().ring(0).mringPort()).isEqualTo(65535);
        // Without ordering=multi-ring the multiring.* keys are not checked; a ring may have an even member count.
        assertThat(ClusterFile.load(write(dir, THREE + "multiring.m=0\n")).ordering()).isEqualTo(Orderings.MULTI_PAXOS);
        assertThat(ClusterFile.load(write(dir, "members=0=a:1,1=a:2\nordering=multi-ring\n")).multiRing().members())
                .isEqualTo(2);
    }

    @Test
    @org.junit.jupiter.api.DisplayName("the multiring.ring.* / multiring.group.* keys lay out the rings: "
            + "per-ring kind and datagram address, group to ring")
    void theMultiRingTopologyKeysReachTheConfiguration(@TempDir Path dir) throws IOException {
        ClusterFile f = ClusterFile.load(write(dir, THREE + """
                ordering=multi-ring
                mring.group=239.255.7.1
                mring.port=9000
                multiring.ring.0.kind=u-ring
                multiring.ring.1.kind=m-ring
                multiring.ring.1.group=239.255.7.9:9100
                multiring.ring.1.members=2,0,1
                multiring.ring.global.kind=u-ring
                multiring.group.2=0
                """));
        MultiRingConfig m = f.multiRing();
        assertThat(m.rings()).isEqualTo(2);
        assertThat(m.groups()).as("groups 0..k-1 and every mapped group").isEqualTo(dev.parallax.core.GroupSet.of(0, 1, 2));
        assertThat(m.topology().ringOf(2)).isZero();
        assertThat(m.kind(0)).isEqualTo(Ring.Kind.U_RING);
        assertThat(m.ring(1).kind()).isEqualTo(Ring.Kind.M_RING);
        assertThat(m.ring(1).mringGroup()).isEqualTo("239.255.7.9");
        assertThat(m.ring(1).mringPort()).isEqualTo(9100);
        assertThat(m.ring(2).kind()).as("the global ring").isEqualTo(Ring.Kind.U_RING);
        assertThat(m.ring(1).lambda()).isEqualTo(20_000L);
        // Without per-ring keys: today's layout from multiring.kind, mring.group and mring.port + i.
        MultiRingConfig plain = ClusterFile.load(write(dir, THREE + "ordering=multi-ring\nmring.group=239.255.7.1\n"
                + "mring.port=9000\n")).multiRing();
        for (int i = 0; i < 3; i++) {
            assertThat(plain.kind(i)).isEqualTo(Ring.Kind.M_RING);
            assertThat(plain.ring(i).mringGroup()).isEqualTo("239.255.7.1");
            assertThat(plain.ring(i).mringPort()).isEqualTo(9000 + i);
        }
        // With another ordering the keys are accepted unchecked, like the other multiring.* keys.
        assertThat(ClusterFile.load(write(dir, THREE + "multiring.ring.7.kind=x\nmultiring.group.3=9\n")).ordering())
                .isEqualTo(Orderings.MULTI_PAXOS);
    }

    @Test
    void badMultiRingTopologyKeysAreRefusedNamingTheKey(@TempDir Path dir) throws IOException {
        Map<String, String> bad = new java.util.LinkedHashMap<>();
        bad.put("multiring.ring.0.members=0", "multiring.ring.0.members=0 leaves out replica 1");
        bad.put("multiring.ring.global.members=0,2,1,1", "multiring.ring.global.members: member 1 is named twice");
        bad.put("multiring.ring.1.members=0,1", "multiring.ring.1.members=0,1 leaves out replica 2");
        bad.put("multiring.ring.0.members=0,1,3", "multiring.ring.0.members: member 3 is not a process 0..2");
        bad.put("multiring.ring.5.kind=u-ring", "multiring.ring.5: unknown ring");
        bad.put("multiring.ring.0.kind=x-ring", "multiring.ring.0.kind must be m-ring or u-ring, got 'x-ring'");
        bad.put("multiring.ring.1.group=239.255.80.1", "multiring.ring.1.group must be <address>:<port>");
        bad.put("multiring.ring.1.group=239.255.80.1:7400", "both use datagram address 239.255.80.1:7400");
        bad.put("multiring.ring.1.group=239.255.80.1:70000", "multiring.ring.1.group: port must be 1..65535");
        bad.put("multiring.group.3=2", "multiring.group.3=2: no such ring");
        bad.put("multiring.group.3=x", "multiring.group.3 must be an integer");
        bad.put("multiring.ring.0.colour=red", "unknown key 'multiring.ring.0.colour'");
        bad.put("multiring.ring.x.kind=u-ring", "unknown key 'multiring.ring.x.kind'");
        for (Map.Entry<String, String> e : bad.entrySet()) {
            Path f = write(dir, THREE + "ordering=multi-ring\n" + e.getKey() + "\n");
            assertThatThrownBy(() -> ClusterFile.load(f)).as(e.getKey()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(f + ": ").hasMessageContaining(e.getValue());
        }
        Path subset = write(dir, THREE + "ordering=multi-ring\nmultiring.ring.1.members=1\n");
        assertThatThrownBy(() -> ClusterFile.load(subset)).hasMessageContaining("subscribes every replica to every group")
                .hasMessageContaining("RingMulticast");
    }

    @Test
    void mistakesAreNamed(@TempDir Path dir) throws IOException {
        assertThatThrownBy(() -> ClusterFile.load(write(dir, "clients=0=a:1\n"))).hasMessageContaining("'members' is required");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, "members=0=a:1\npaxos.windw=3\n")))
                .hasMessageContaining("unknown key 'paxos.windw' (did you mean paxos.window?)");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, "members=0=a:1\npaxos.window=ten\n")))
                .hasMessageContaining("paxos.window is not a whole number");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, "members=0=a:1,1=a:2\nredis=0=a:3\n")))
                .hasMessageContaining("redis lists 1 replicas, members lists 2");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, "members=0=a:1\nwait=sometimes\n")))
                .hasMessageContaining("wait must be");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, "members=0=a\n"))).hasMessageContaining("members:");
    }

    private static final String THREE = "members=0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002\n";

    @Test
    void orderingExecutionAndThreadsDefaultToMultiPaxosSequentialAndAuto(@TempDir Path dir) throws IOException {
        ClusterFile f = ClusterFile.load(write(dir, THREE));
        assertThat(f.ordering()).isEqualTo(Orderings.MULTI_PAXOS);
        assertThat(f.execution()).isEqualTo(Executions.SEQUENTIAL);
        assertThat(f.executionThreads()).isEqualTo(ClusterFile.DEFAULT_EXECUTION_THREADS);
        assertThat(f.threads()).isEqualTo(ThreadPlacement.AUTO);
        assertThat(f.replica(1).threads()).isEqualTo(ThreadPlacement.AUTO);
        assertThat(f.orderingProtocol()).isNotNull();
        assertThat(f.describeRuntime(1)).isEqualTo("ordering multi-paxos, execution sequential, threads auto (compact with 1 core)");
        assertThat(f.describeRuntime(2)).endsWith("threads auto (compact with 2 cores)");
        assertThat(f.describeRuntime(16)).endsWith("threads auto (staged with 16 cores)");
    }

    @Test
    void orderingExecutionAndThreadsAreParsed(@TempDir Path dir) throws IOException {
        ClusterFile f = ClusterFile.load(write(dir, THREE + """
                ordering=Multi-Paxos
                execution=early-ws-opt
                execution.threads=3
                threads=staged
                """));
        assertThat(f.ordering()).isEqualTo(Orderings.MULTI_PAXOS);
        assertThat(f.execution()).isEqualTo(Executions.EARLY_WS_OPT);
        assertThat(f.executionThreads()).isEqualTo(3);
        assertThat(f.threads()).isEqualTo(ThreadPlacement.STAGED);
        assertThat(f.replica(2).threads()).isEqualTo(ThreadPlacement.STAGED);
        assertThat(f.describeRuntime(2)).isEqualTo("ordering multi-paxos, execution early-ws-opt (3 workers), threads staged");
        for (Executions e : Executions.values()) {
            String ordering = e.oneWorkerPerGroup() ? "ordering=multi-ring\n" : e.partitioned() ? "ordering=multi-ring\nmultiring.rings=1\nservice=volery\n" : "";
            assertThat(ClusterFile.load(write(dir, THREE + ordering + "execution=" + e.configName() + "\n")).execution()).isEqualTo(e);
        }
        for (ThreadPlacement t : ThreadPlacement.values()) {
            assertThat(ClusterFile.load(write(dir, THREE + "threads=" + t.configName() + "\n")).replica(0).threads()).isEqualTo(t);
        }
    }

    @Test
    void unknownOrderingExecutionOrThreadsFailAtLoadNamingTheKeyAndTheAcceptedValues(@TempDir Path dir) throws IOException {
        Path f = write(dir, THREE + "ordering=raft\n");
        assertThatThrownBy(() -> ClusterFile.load(f)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(f + ": ordering must be one of multi-paxos, s-paxos, u-ring, m-ring, multi-ring, multicast; got 'raft'");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, THREE + "execution=parallel\n")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("execution must be one of sequential, late-scheduling, early-barrier, early-busy-wait, "
                        + "early-ws-queue, early-ws-semi-blocked, early-ws-non-blocked, early-ws-opt, p-smr, s-smr; got 'parallel'");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, THREE + "threads=many\n")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("threads must be staged, compact or auto, got 'many'");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, THREE + "execution.threads=0\n")))
                .hasMessageContaining("execution.threads must be >= 1, got 0");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, THREE + "execution.threads=two\n")))
                .hasMessageContaining("execution.threads is not a whole number: 'two'");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, THREE + "executon=sequential\n")))
                .as("a misspelt key is still an unknown key").hasMessageContaining("unknown key 'executon' (did you mean execution?)");
    }

    @Test
    void settingsFromTheCommandLineOverrideTheFileAndAreValidated(@TempDir Path dir) throws IOException {
        ClusterFile file = ClusterFile.load(write(dir, THREE + "execution=early-barrier\nthreads=compact\n"));
        ClusterFile f = file.with(Map.of("execution", "late-scheduling", "execution.threads", "4"));
        assertThat(f.execution()).isEqualTo(Executions.LATE_SCHEDULING);
        assertThat(f.executionThreads()).isEqualTo(4);
        assertThat(f.threads()).as("a key not overridden keeps the file's value").isEqualTo(ThreadPlacement.COMPACT);
        assertThat(file.execution()).as("the original is unchanged").isEqualTo(Executions.EARLY_BARRIER);
        assertThat(file.with(Map.of()).execution()).isEqualTo(Executions.EARLY_BARRIER);
        assertThatThrownBy(() -> file.with(Map.of("ordering", "raft")))
                .hasMessageContaining("cluster.properties: ordering must be one of multi-paxos, s-paxos, u-ring, m-ring, multi-ring, multicast; got 'raft'");
        assertThat(file.with(Map.of("ordering", "multi-ring")).ordering()).isEqualTo(Orderings.MULTI_RING);
        assertThat(file.with(Map.of("ordering", "u-ring")).ordering()).isEqualTo(Orderings.U_RING);
    }

    @Test
    @org.junit.jupiter.api.DisplayName("seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6: execution=p-smr runs over multi-ring "
            + "with one worker per group, multiring.rings by default")
    void pSmrRunsOverMultiRingWithOneWorkerPerGroup(@TempDir Path dir) throws IOException {
        ClusterFile f = ClusterFile.load(write(dir, THREE + "ordering=multi-ring\nexecution=p-smr\n"));
        assertThat(f.execution()).isEqualTo(Executions.P_SMR);
        assertThat(f.executionThreads()).as("multiring.rings, its default").isEqualTo(MultiRingConfig.DEFAULT_RINGS);
        assertThat(f.describeRuntime(2)).startsWith("ordering multi-ring, execution p-smr (" + MultiRingConfig.DEFAULT_RINGS
                + " workers, one per group), threads ");
        try (Executor executor = f.executor(KvClassifier.SERVICE)) {
            assertThat(((PsmrExecutor) executor).workers()).isEqualTo(MultiRingConfig.DEFAULT_RINGS);
        }
        ClusterFile three = ClusterFile.load(write(dir, THREE + "ordering=multi-ring\nmultiring.rings=3\nexecution=p-smr\n"));
        assertThat(three.executionThreads()).isEqualTo(3);
        ClusterFile given = ClusterFile.load(write(dir, THREE + "ordering=multi-ring\nmultiring.rings=3\nexecution=p-smr\n"
                + "execution.threads=3\n"));
        assertThat(given.executionThreads()).as("execution.threads equal to multiring.rings").isEqualTo(3);
        try (Executor executor = given.executor(KvClassifier.SERVICE)) {
            assertThat(((PsmrExecutor) executor).workers()).isEqualTo(3);
        }
        ClusterFile one = ClusterFile.load(write(dir, THREE + "ordering=multi-ring\nmultiring.rings=1\nexecution=p-smr\n"));
        assertThat(one.executionThreads()).as("one ring, one worker").isEqualTo(1);
        // The command line's --execution p-smr over a multi-ring file.
        ClusterFile ring = ClusterFile.load(write(dir, THREE + "ordering=multi-ring\nmultiring.rings=4\n"));
        assertThat(ring.with(Map.of("execution", "p-smr")).executionThreads()).isEqualTo(4);
        // Other executors keep their own default and any count.
        assertThat(ring.with(Map.of("execution", "early-ws-opt")).executionThreads()).isEqualTo(ClusterFile.DEFAULT_EXECUTION_THREADS);
        assertThat(ring.with(Map.of("execution", "early-ws-opt", "execution.threads", "3")).executionThreads()).isEqualTo(3);
    }

    private static String members(int n) {
        StringBuilder b = new StringBuilder("members=");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append(i).append("=127.0.0.1:").append(7000 + i);
        }
        return b.append('\n').toString();
    }

    @Test
    @org.junit.jupiter.api.DisplayName("seed 004 (S-SMR) §VI: execution=s-smr splits the members into multiring.rings partitions, "
            + "ring p over partition p's block of ids, the global ring over all")
    void sSmrSplitsTheMembersIntoPartitions(@TempDir Path dir) throws IOException {
        ClusterFile f = ClusterFile.load(write(dir, members(9) + "ordering=multi-ring\nmultiring.rings=3\nexecution=s-smr\nservice=volery\n"));
        assertThat(f.execution()).isEqualTo(Executions.S_SMR);
        assertThat(f.execution().parallel()).isFalse();
        assertThat(f.partitions()).isEqualTo(3);
        assertThat(f.partitionMembers()).containsExactly(new int[]{0, 1, 2}, new int[]{3, 4, 5}, new int[]{6, 7, 8});
        for (int id = 0; id < 9; id++) {
            assertThat(f.partitionOf(id)).isEqualTo(id / 3);
        }
        assertThat(f.multiRing().topology().members(MultiRingTopology.GLOBAL)).hasSize(9);
        ClusterFile named = ClusterFile.load(write(dir, members(9) + "ordering=multi-ring\nmultiring.rings=3\nexecution=s-smr\nservice=volery\n"
                + "multiring.ring.0.members=0,4,8\nmultiring.ring.1.members=1,3,5\nmultiring.ring.2.members=2,6,7\n"));
        assertThat(named.partitionMembers()).containsExactly(new int[]{0, 4, 8}, new int[]{1, 3, 5}, new int[]{2, 6, 7});
        ClusterFile one = ClusterFile.load(write(dir, THREE + "ordering=multi-ring\nmultiring.rings=1\nexecution=s-smr\nservice=volery\n"));
        assertThat(one.partitions()).isEqualTo(1);
        assertThat(ClusterFile.load(write(dir, THREE + "ordering=multi-ring\n")).partitions()).as("not s-smr").isEqualTo(1);
        assertThatThrownBy(() -> one.executor(KvClassifier.SERVICE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("execution=s-smr runs partitioned services (service=kv: KvPartition, service=volery: VoleryPartition)");
    }

    @Test
    @org.junit.jupiter.api.DisplayName("seed 004: execution=s-smr is refused without multi-ring, with members not a multiple of the "
            + "partitions, and with a replica in two partitions or none")
    void sSmrLayoutsThatCannotWorkAreRefused(@TempDir Path dir) throws IOException {
        ClusterFile kv = ClusterFile.load(write(dir, members(6) + "ordering=multi-ring\nmultiring.rings=2\nexecution=s-smr\n"
                + "redis=0=127.0.0.1:1,1=127.0.0.1:2,2=127.0.0.1:3,3=127.0.0.1:4,4=127.0.0.1:5,5=127.0.0.1:6\n"));
        assertThat(kv.service()).as("s-smr runs the key-value store split by key too").isEqualTo(ClusterFile.KV);
        assertThat(kv.partitions()).isEqualTo(2);
        assertThat(kv.partitionMembers()).containsExactly(new int[]{0, 1, 2}, new int[]{3, 4, 5});
        Path voleryRedis = write(dir, THREE + "ordering=multi-ring\nmultiring.rings=1\nexecution=s-smr\nservice=volery\n"
                + "redis=0=127.0.0.1:1,1=127.0.0.1:2,2=127.0.0.1:3\n");
        assertThatThrownBy(() -> ClusterFile.load(voleryRedis)).hasMessageContaining("redis front ends serve service=kv only");
        Path sequential = write(dir, THREE + "service=volery\n");
        assertThatThrownBy(() -> ClusterFile.load(sequential)).hasMessage(sequential + ": service=volery runs with execution=s-smr "
                + "(its partitions are multiring.rings, 1 for a single partition), got execution=sequential");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, THREE + "service=zk\n"))).hasMessageContaining("service must be kv or "
                + "volery, got 'zk'");
        assertThatThrownBy(() -> ClusterFile.load(write(dir, THREE + "zookeeper=0=127.0.0.1:1,1=127.0.0.1:2,2=127.0.0.1:3\n")))
                .hasMessageContaining("zookeeper front ends serve service=volery only");
        Path paxos = write(dir, THREE + "execution=s-smr\nservice=volery\n");
        assertThatThrownBy(() -> ClusterFile.load(paxos)).hasMessage(paxos + ": execution=s-smr needs ordering=multi-ring (one "
                + "ring per partition over its replicas, and the global ring), got ordering=multi-paxos");
        Path uneven = write(dir, members(9) + "ordering=multi-ring\nmultiring.rings=2\nexecution=s-smr\nservice=volery\n");
        assertThatThrownBy(() -> ClusterFile.load(uneven)).hasMessageContaining("splits the 9 members into multiring.rings=2 "
                + "partitions of equal size");
        Path twice = write(dir, members(9) + "ordering=multi-ring\nmultiring.rings=3\nexecution=s-smr\nservice=volery\n"
                + "multiring.ring.0.members=0,1,2\nmultiring.ring.1.members=2,3,4\nmultiring.ring.2.members=5,6,7,8,0\n");
        assertThatThrownBy(() -> ClusterFile.load(twice)).hasMessageContaining("replica 0 is in the rings of partitions 0 and 2");
        Path none = write(dir, members(9) + "ordering=multi-ring\nmultiring.rings=3\nexecution=s-smr\nservice=volery\n"
                + "multiring.ring.0.members=0,1,2\nmultiring.ring.1.members=3,4,5\nmultiring.ring.2.members=6,7,0\n");
        assertThatThrownBy(() -> ClusterFile.load(none)).hasMessageContaining("replica 8 is in no group ring");
    }

    @Test
    @org.junit.jupiter.api.DisplayName("seed 003 ch. 6: execution=p-smr is refused without ordering=multi-ring and with "
            + "execution.threads other than multiring.rings, naming the keys and the fix")
    void pSmrWithoutMultiRingOrWithAnotherWorkerCountIsRefused(@TempDir Path dir) throws IOException {
        for (String ordering : List.of("", "ordering=multi-paxos\n", "ordering=s-paxos\n", "ordering=u-ring\n", "ordering=m-ring\n")) {
            Path f = write(dir, THREE + ordering + "execution=p-smr\n");
            String named = ordering.isEmpty() ? "multi-paxos" : ordering.substring("ordering=".length()).trim();
            assertThatThrownBy(() -> ClusterFile.load(f)).as(named).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(f + ": execution=p-smr needs an ordering with groups, ordering=multi-ring or multicast, got "
                            + "ordering=" + named + ": each P-SMR worker delivers its group's stream merged with the global "
                            + "stream; set ordering=multi-ring (multiring.rings groups, one worker each) or ordering=multicast "
                            + "(multicast.groups groups, one worker each), or choose another execution");
        }
        Path threads = write(dir, THREE + "ordering=multi-ring\nmultiring.rings=2\nexecution=p-smr\nexecution.threads=3\n");
        assertThatThrownBy(() -> ClusterFile.load(threads)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(threads + ": execution=p-smr runs one worker per group: execution.threads=3 must equal "
                        + "multiring.rings=2; set execution.threads=2 or remove it (p-smr then runs multiring.rings workers), "
                        + "or set multiring.rings=3");
        Path defaultRings = write(dir, THREE + "ordering=multi-ring\nexecution=p-smr\nexecution.threads=1\n");
        assertThatThrownBy(() -> ClusterFile.load(defaultRings)).as("the default multiring.rings counts")
                .hasMessageContaining("execution.threads=1 must equal multiring.rings=" + MultiRingConfig.DEFAULT_RINGS);
        assertThatThrownBy(() -> ClusterFile.load(write(dir, THREE + "ordering=multi-ring\nexecution=p-smr\nexecution.threads=0\n")))
                .hasMessageContaining("execution.threads must be >= 1, got 0");
        // The command line's settings are checked alike.
        ClusterFile paxos = ClusterFile.load(write(dir, THREE));
        assertThatThrownBy(() -> paxos.with(Map.of("execution", "p-smr")))
                .hasMessageContaining("execution=p-smr needs an ordering with groups, ordering=multi-ring or multicast, "
                        + "got ordering=multi-paxos");
        ClusterFile ring = ClusterFile.load(write(dir, THREE + "ordering=multi-ring\nexecution=p-smr\n"));
        assertThatThrownBy(() -> ring.with(Map.of("execution.threads", "5"))).hasMessageContaining("execution.threads=5 must equal");
        assertThatThrownBy(() -> ring.with(Map.of("ordering", "s-paxos"))).hasMessageContaining("got ordering=s-paxos");
    }

    @Test
    @org.junit.jupiter.api.DisplayName("seed 003 ch. 6: the key-value store is partitioned by the router's groups exactly when "
            + "execution=p-smr, and a replica refuses a store of another partition count")
    void theKeyValueStoreIsPartitionedByTheRoutersGroupsUnderPSmr(@TempDir Path dir) throws IOException {
        ClusterFile psmr = ClusterFile.load(write(dir, THREE + "ordering=multi-ring\nmultiring.rings=3\nexecution=p-smr\n"));
        assertThat(KvRouting.groups(psmr)).isEqualTo(3);
        assertThat(KvRouting.router(psmr)).get().extracting(dev.parallax.examples.kv.KvRouter::groups).isEqualTo(3);
        assertThat(KvRouting.partitions(psmr)).isEqualTo(3);
        assertThat(KvRouting.stateMachine(psmr).partitions()).isEqualTo(3);
        ClusterFile ringSequential = psmr.with(Map.of("execution", "sequential"));
        assertThat(KvRouting.groups(ringSequential)).isEqualTo(3);
        assertThat(KvRouting.partitions(ringSequential)).as("sequential execution: one partition").isEqualTo(1);
        ClusterFile ringEarly = psmr.with(Map.of("execution", "early-ws-opt"));
        assertThat(KvRouting.stateMachine(ringEarly).partitions()).as("early scheduling orders the store's commands itself")
                .isEqualTo(1);
        ClusterFile paxos = ClusterFile.load(write(dir, THREE + "execution=early-busy-wait\n"));
        assertThat(KvRouting.groups(paxos)).isEqualTo(1);
        assertThat(KvRouting.router(paxos)).isEmpty();
        assertThat(KvRouting.stateMachine(paxos).partitions()).isEqualTo(1);

        assertThatThrownBy(() -> ReplicaCommand.kvReplica(psmr, 0, new dev.parallax.examples.kv.KvStateMachine()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("execution=p-smr needs a key-value store of 3 partitions (one per group, multiring.rings), got one "
                        + "of 1; build it with KvRouting.stateMachine(file)");
        assertThatThrownBy(() -> ReplicaCommand.kvReplica(ringEarly, 0, new dev.parallax.examples.kv.KvStateMachine(3)))
                .hasMessage("execution=early-ws-opt needs a key-value store of 1 partition, got one of 3; build it with "
                        + "KvRouting.stateMachine(file)");
        assertThat(ReplicaCommand.kvReplica(psmr, 0, KvRouting.stateMachine(psmr))).isNotNull();
    }

    @Test
    @org.junit.jupiter.api.DisplayName("seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5-6: multicast.groups (default 2, 1..16) sets "
            + "the reference multicast's groups; p-smr runs over ordering=multicast with one worker per group, and the groups "
            + "count in one place for routing, partitions and workers")
    void multicastGroupsAreReadCheckedAndDrivePSmrRoutingAndPartitions(@TempDir Path dir) throws IOException {
        ClusterFile plain = ClusterFile.load(write(dir, THREE + "ordering=multicast\n"));
        assertThat(plain.multicastGroups()).isEqualTo(ClusterFile.DEFAULT_MULTICAST_GROUPS).isEqualTo(2);
        assertThat(plain.orderingGroups()).isEqualTo(2);
        assertThat(plain.routesByKey()).isTrue();
        assertThat(KvRouting.partitions(plain)).as("sequential execution: one partition").isEqualTo(1);
        for (String bad : List.of("0", "17", "-1")) {
            Path f = write(dir, THREE + "ordering=multicast\nmulticast.groups=" + bad + "\n");
            assertThatThrownBy(() -> ClusterFile.load(f)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(f + ": multicast.groups must be 1..16 (groups of ordering=multicast), got " + bad);
        }
        Path word = write(dir, THREE + "ordering=multicast\nmulticast.groups=two\n");
        assertThatThrownBy(() -> ClusterFile.load(word)).hasMessage(word + ": multicast.groups is not a whole number: 'two'");
        Path typo = write(dir, THREE + "ordering=multicast\nmulticast.group=2\n");
        assertThatThrownBy(() -> ClusterFile.load(typo)).hasMessageContaining("unknown key 'multicast.group' (did you mean multicast.groups?)")
                .hasMessageContaining("multicast.groups");

        ClusterFile psmr = ClusterFile.load(write(dir, THREE + "ordering=multicast\nmulticast.groups=3\nexecution=p-smr\n"));
        assertThat(psmr.executionThreads()).as("multicast.groups, its default").isEqualTo(3);
        assertThat(psmr.describeRuntime(2)).startsWith("ordering multicast, execution p-smr (3 workers, one per group), threads ");
        try (Executor executor = psmr.executor(KvClassifier.SERVICE)) {
            assertThat(((PsmrExecutor) executor).workers()).isEqualTo(3);
        }
        assertThat(KvRouting.groups(psmr)).isEqualTo(3);
        assertThat(KvRouting.router(psmr)).get().extracting(dev.parallax.examples.kv.KvRouter::groups).isEqualTo(3);
        assertThat(KvRouting.stateMachine(psmr).partitions()).isEqualTo(3);
        assertThat(ReplicaCommand.kvReplica(psmr, 0, KvRouting.stateMachine(psmr))).isNotNull();
        assertThatThrownBy(() -> ReplicaCommand.kvReplica(psmr, 0, new dev.parallax.examples.kv.KvStateMachine()))
                .hasMessage("execution=p-smr needs a key-value store of 3 partitions (one per group, multicast.groups), got one "
                        + "of 1; build it with KvRouting.stateMachine(file)");
        assertThat(psmr.with(Map.of("execution.threads", "3")).executionThreads()).isEqualTo(3);
        Path threads = write(dir, THREE + "ordering=multicast\nexecution=p-smr\nexecution.threads=3\n");
        assertThatThrownBy(() -> ClusterFile.load(threads)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(threads + ": execution=p-smr runs one worker per group: execution.threads=3 must equal "
                        + "multicast.groups=2; set execution.threads=2 or remove it (p-smr then runs multicast.groups workers), "
                        + "or set multicast.groups=3");
        // The command line's --ordering multicast --execution p-smr over a multi-paxos file.
        ClusterFile paxos = ClusterFile.load(write(dir, THREE));
        assertThat(paxos.routesByKey()).isFalse();
        assertThat(paxos.orderingGroups()).isEqualTo(1);
        ClusterFile switched = paxos.with(Map.of("ordering", "multicast", "execution", "p-smr"));
        assertThat(switched.executionThreads()).isEqualTo(ClusterFile.DEFAULT_MULTICAST_GROUPS);
        // A multi-ring file's groups are its rings, whatever multicast.groups says.
        ClusterFile ring = ClusterFile.load(write(dir, THREE + "ordering=multi-ring\nmultiring.rings=3\nmulticast.groups=5\n"));
        assertThat(ring.orderingGroups()).isEqualTo(3);
        assertThat(ring.with(Map.of("ordering", "multicast")).orderingGroups()).isEqualTo(5);
    }

    @Test
    void aServiceWithoutRequestClassesRunsOnlySequentially(@TempDir Path dir) throws IOException {
        ServiceClasses plain = ServiceClasses.none("counter service");
        try (Executor executor = ClusterFile.load(write(dir, THREE)).executor(plain)) {
            assertThat(executor).isInstanceOf(dev.parallax.core.exec.SequentialExecutor.class);
        }
        ClusterFile early = ClusterFile.load(write(dir, THREE + "execution=early-busy-wait\n"));
        assertThatThrownBy(() -> early.executor(plain)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("execution=early-busy-wait needs the request classes of the service, and the counter "
                        + "service has none; it runs only with execution=sequential");
    }

    @Test
    void theMetricsEndpointServesPrometheusText() throws Exception {
        PrometheusMeterRegistry registry = MetricsEndpoint.registry();
        Counter.builder("parallax.demo.things").register(registry).increment(3);
        try (MetricsEndpoint endpoint = new MetricsEndpoint(registry, "127.0.0.1", 0)) {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + endpoint.port() + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("parallax_demo_things_total 3.0");
        }
    }
}
