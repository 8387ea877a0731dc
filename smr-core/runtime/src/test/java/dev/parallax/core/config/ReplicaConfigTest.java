package dev.parallax.core.config;

import dev.parallax.core.spi.SyncPolicy;
import dev.parallax.core.stage.ThreadPlacement;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReplicaConfigTest {
    private static final ClusterMembers THREE = ClusterMembers.parse("0=h:1,1=h:2,2=h:3");

    private static ReplicaConfig.Builder base() {
        return ReplicaConfig.builder().id(1).members(THREE);
    }

    @Test
    @DisplayName("defaults: the paper's where it gives them, and every one the key's default")
    void defaults() {
        ReplicaConfig c = base().build();
        assertThat(c.requestQueueCapacity()).isEqualTo(1000);
        assertThat(c.proposalQueueCapacity()).isEqualTo(20);
        assertThat(c.decisionQueueCapacity()).isEqualTo(256);
        assertThat(c.sendQueueCapacity()).isEqualTo(4096);
        assertThat(c.maxFrameBytes()).isEqualTo(16 << 20).isEqualTo(ReplicaConfig.DEFAULT_MAX_FRAME);
        assertThat(c.maxCommandBytes()).isEqualTo(1 << 20);
        assertThat(c.clientWriteLowBytes()).isEqualTo(256 << 10);
        assertThat(c.clientWriteHighBytes()).isEqualTo(1 << 20);
        assertThat(c.partialFrameTimeout()).isEqualTo(Duration.ofSeconds(30)).isEqualTo(ReplicaConfig.DEFAULT_PARTIAL_FRAME_TIMEOUT);
        assertThat(c.snapshotLogBytes()).isEqualTo(256L << 20).isEqualTo(ReplicaConfig.DEFAULT_SNAPSHOT_LOG_BYTES);
        assertThat(c.snapshotTransferTimeout()).isEqualTo(Duration.ofSeconds(30))
                .isEqualTo(ReplicaConfig.DEFAULT_SNAPSHOT_TRANSFER_TIMEOUT);
        assertThat(c.snapshotMaxBytes()).isEqualTo(16L << 30).isEqualTo(ReplicaConfig.DEFAULT_SNAPSHOT_MAX_BYTES);
        assertThat(c.waitMode()).isEqualTo(WaitMode.AUTO);
        assertThat(c.logSync()).isEqualTo(SyncPolicy.EVERY_BATCH);
        assertThat(c.clientIoThreads()).isEqualTo(ReplicaConfig.Builder.defaultClientIoThreads(Runtime.getRuntime().availableProcessors()))
                .isBetween(1, 4);
        assertThat(c.replicaIoThreads()).as("one per peer").isEqualTo(2);
        assertThat(c.threads()).isEqualTo(ThreadPlacement.jvmDefault());
        assertThat(c.tls()).isEqualTo(TlsConfig.OFF);
        assertThat(c.self()).isEqualTo(new Member(1, "h", 2));
        assertThat(c.dataDirectory()).isEmpty();
        assertThat(c.clientMembers()).isEqualTo(ClusterMembers.parse("0=h:1001,1=h:1002,2=h:1003"));
        assertThat(ReplicaKeys.CONFIG.keys()).as("typed values are not keys of the configuration's values")
                .doesNotContain(ReplicaKeys.MEMBERS, ReplicaKeys.CLIENTS, ReplicaKeys.DATA_DIR, ReplicaKeys.THREADS, ReplicaKeys.TLS_CA)
                .contains(ReplicaKeys.MAX_FRAME_BYTES, ReplicaKeys.WAIT, ReplicaKeys.SNAPSHOT_LOG_BYTES);
        for (ConfigKey<?> k : ReplicaKeys.CONFIG.keys()) {
            assertThat(ReplicaKeys.TABLE.key(k.name())).as("%s is a key of the replica's table", k).containsSame(k);
        }
    }

    @Test
    void replicaIoThreadsFollowTheMembers() {
        assertThat(ReplicaConfig.builder().id(0).members(ClusterMembers.parse("0=h:1")).build().replicaIoThreads()).isEqualTo(1);
        assertThat(ReplicaConfig.builder().id(0).members(ClusterMembers.parse("0=h:1,1=h:2,2=h:3,3=h:4,4=h:5")).build()
                .replicaIoThreads()).isEqualTo(4);
    }

    @Test
    void everyWaitModeMapsToAStrategy() {
        for (WaitMode m : WaitMode.values()) {
            assertThat(m.strategy()).isNotNull();
        }
    }

    @Test
    void clientIoThreadsScaleWithCores() {
        assertThat(ReplicaConfig.Builder.defaultClientIoThreads(1)).isEqualTo(1);
        assertThat(ReplicaConfig.Builder.defaultClientIoThreads(2)).isEqualTo(1);
        assertThat(ReplicaConfig.Builder.defaultClientIoThreads(8)).isEqualTo(4);
        assertThat(ReplicaConfig.Builder.defaultClientIoThreads(64)).isEqualTo(4);
    }

    /** Every parameter set to a value other than its default. */
    private static ReplicaConfig everythingSet() {
        TlsConfig tls = TlsConfig.builder().replicaPort(true).trust(Path.of("ca.pem")).identity(Path.of("c.pem"), Path.of("k.pem")).build();
        return ReplicaConfig.builder().id(2).members(THREE).clientMembers(ClusterMembers.parse("0=c:1,1=c:2,2=c:3"))
                .dataDirectory(Path.of("/d")).clientIoThreads(3).replicaIoThreads(5).requestQueueCapacity(10)
                .proposalQueueCapacity(11).decisionQueueCapacity(12).sendQueueCapacity(13).maxFrameBytes(1 << 16)
                .maxCommandBytes(1 << 10).waitMode(WaitMode.PARK).threads(ThreadPlacement.COMPACT)
                .logSync(SyncPolicy.PERIODIC).clientWriteBufferWaterMarks(10, 20).partialFrameTimeout(Duration.ofMillis(5))
                .snapshotLogBytes(7).snapshotTransferTimeout(Duration.ofMillis(8)).snapshotMaxBytes(9).tls(tls).build();
    }

    private static void assertEverythingSet(ReplicaConfig c) {
        assertThat(c.id()).isEqualTo(2);
        assertThat(c.members()).isEqualTo(THREE);
        assertThat(c.clientMembers()).isEqualTo(ClusterMembers.parse("0=c:1,1=c:2,2=c:3"));
        assertThat(c.dataDirectory()).contains(Path.of("/d"));
        assertThat(c.clientIoThreads()).isEqualTo(3);
        assertThat(c.replicaIoThreads()).isEqualTo(5);
        assertThat(c.requestQueueCapacity()).isEqualTo(10);
        assertThat(c.proposalQueueCapacity()).isEqualTo(11);
        assertThat(c.decisionQueueCapacity()).isEqualTo(12);
        assertThat(c.sendQueueCapacity()).isEqualTo(13);
        assertThat(c.maxFrameBytes()).isEqualTo(1 << 16);
        assertThat(c.maxCommandBytes()).isEqualTo(1 << 10);
        assertThat(c.waitMode()).isEqualTo(WaitMode.PARK);
        assertThat(c.threads()).isEqualTo(ThreadPlacement.COMPACT);
        assertThat(c.logSync()).isEqualTo(SyncPolicy.PERIODIC);
        assertThat(c.clientWriteLowBytes()).isEqualTo(10);
        assertThat(c.clientWriteHighBytes()).isEqualTo(20);
        assertThat(c.partialFrameTimeout()).isEqualTo(Duration.ofMillis(5));
        assertThat(c.snapshotLogBytes()).isEqualTo(7);
        assertThat(c.snapshotTransferTimeout()).isEqualTo(Duration.ofMillis(8));
        assertThat(c.snapshotMaxBytes()).isEqualTo(9);
        assertThat(c.tls().replicaPort()).isTrue();
    }

    @Test
    @DisplayName("every value set in the builder is read back by its getter, and toBuilder copies every one")
    void roundTrip() {
        ReplicaConfig c = everythingSet();
        assertEverythingSet(c);
        assertEverythingSet(c.toBuilder().build());
        assertThat(c.toBuilder().build().toString()).isEqualTo(c.toString());
        assertThat(c.toString()).contains("id=2", "dataDirectory=/d", "threads=COMPACT", "replicaIoThreads=5",
                "request.queue.capacity=10", "wait=park", "log.sync=periodic", "client.write.low.bytes=10",
                "client.write.high.bytes=20", "partial.frame.timeout.ms=5", "snapshot.max.bytes=9");
        ReplicaConfig changed = c.toBuilder().requestQueueCapacity(99).build();
        assertThat(changed.requestQueueCapacity()).isEqualTo(99);
        assertThat(c.requestQueueCapacity()).as("the original is immutable").isEqualTo(10);
    }

    @Test
    @DisplayName("every wait mode and sync policy goes through its key and back")
    void enumsRoundTrip() {
        for (WaitMode m : WaitMode.values()) {
            assertThat(base().waitMode(m).build().waitMode()).isEqualTo(m);
            String name = m.name().toLowerCase(Locale.ROOT).replace('_', '-');
            assertThat(read(Map.of("wait", name)).waitMode()).isEqualTo(m);
        }
        for (SyncPolicy p : SyncPolicy.values()) {
            assertThat(base().logSync(p).build().logSync()).isEqualTo(p);
            String name = p.name().toLowerCase(Locale.ROOT).replace('_', '-');
            assertThat(read(Map.of("log.sync", name)).logSync()).isEqualTo(p);
        }
    }

    @Test
    @DisplayName("each setter refuses a bad value at once, naming the key")
    void setterValidation() {
        Map<Consumer<ReplicaConfig.Builder>, String> bad = new LinkedHashMap<>();
        bad.put(b -> b.clientIoThreads(0), "client.io.threads must be > 0, got 0");
        bad.put(b -> b.replicaIoThreads(-1), "replica.io.threads must be > 0, got -1");
        bad.put(b -> b.requestQueueCapacity(0), "request.queue.capacity must be > 0, got 0");
        bad.put(b -> b.proposalQueueCapacity(0), "proposal.queue.capacity must be > 0, got 0");
        bad.put(b -> b.decisionQueueCapacity(0), "decision.queue.capacity must be > 0, got 0");
        bad.put(b -> b.sendQueueCapacity(0), "send.queue.capacity must be > 0, got 0");
        bad.put(b -> b.maxFrameBytes(0), "max.frame.bytes must be > 0, got 0");
        bad.put(b -> b.maxCommandBytes(-5), "max.command.bytes must be > 0, got -5");
        bad.put(b -> b.partialFrameTimeout(Duration.ZERO), "partial.frame.timeout.ms must be > 0, got 0 ms");
        bad.put(b -> b.partialFrameTimeout(Duration.ofMillis(-1)), "partial.frame.timeout.ms must be > 0, got -1 ms");
        bad.put(b -> b.snapshotLogBytes(0), "snapshot.log.bytes must be > 0, got 0");
        bad.put(b -> b.snapshotTransferTimeout(Duration.ZERO), "snapshot.transfer.timeout.ms must be > 0, got 0 ms");
        bad.put(b -> b.snapshotMaxBytes(0), "snapshot.max.bytes must be > 0, got 0");
        bad.put(b -> b.clientWriteBufferWaterMarks(20, 10), "client write-buffer water marks must satisfy 0 < low <= high "
                + "(client.write.low.bytes, client.write.high.bytes), got 20/10");
        bad.put(b -> b.clientWriteBufferWaterMarks(0, 10), "must satisfy 0 < low <= high");
        bad.put(b -> b.id(-1), "replica id must be 0..31, got -1");
        bad.put(b -> b.id(32), "replica id must be 0..31, got 32");
        for (Map.Entry<Consumer<ReplicaConfig.Builder>, String> e : bad.entrySet()) {
            assertThatThrownBy(() -> e.getKey().accept(ReplicaConfig.builder())).as(e.getValue())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(e.getValue());
        }
        assertThatThrownBy(() -> ReplicaConfig.builder().partialFrameTimeout(null)).hasMessageContaining("partial.frame.timeout.ms");
        assertThatThrownBy(() -> ReplicaConfig.builder().snapshotTransferTimeout(null)).hasMessageContaining("snapshot.transfer.timeout.ms");
        assertThatThrownBy(() -> ReplicaConfig.builder().waitMode(null)).hasMessageContaining("waitMode");
        assertThatThrownBy(() -> ReplicaConfig.builder().logSync(null)).hasMessageContaining("logSync");
        assertThatThrownBy(() -> ReplicaConfig.builder().threads(null)).hasMessageContaining("threads");
        assertThatThrownBy(() -> ReplicaConfig.builder().tls(null)).hasMessageContaining("tls");
        assertThatThrownBy(() -> ReplicaConfig.builder().members(null)).hasMessageContaining("members");
        ReplicaConfig.Builder b = base().requestQueueCapacity(7);
        assertThatThrownBy(() -> b.requestQueueCapacity(0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(b.build().requestQueueCapacity()).as("a refused value leaves the previous one").isEqualTo(7);
    }

    @Test
    @DisplayName("build refuses missing and disagreeing values, naming them")
    void buildValidation() {
        assertThatThrownBy(() -> ReplicaConfig.builder().members(THREE).build()).hasMessage("id is required");
        assertThatThrownBy(() -> ReplicaConfig.builder().id(0).build()).hasMessage("members are required");
        assertThatThrownBy(() -> ReplicaConfig.builder().id(3).members(THREE).build()).hasMessageContaining("id 3 is not a member")
                .hasMessageContaining("needs the address it listens on");
        assertThatThrownBy(() -> base().clientMembers(ClusterMembers.parse("0=c:1,1=c:2")).build())
                .hasMessage("clientMembers has 2 entries for 3 members");
        assertThatThrownBy(() -> ReplicaConfig.builder().id(0).members(ClusterMembers.parse("0=h:65000")).build())
                .hasMessage("member 0: cannot derive a client port from 65000; set clientMembers");
        assertThatThrownBy(() -> base().maxFrameBytes(100).maxCommandBytes(200).build())
                .hasMessage("max.command.bytes (200) exceeds max.frame.bytes (100): a command must fit a frame");
        assertThat(base().maxFrameBytes(100).maxCommandBytes(100).build().maxCommandBytes()).isEqualTo(100);
        ReplicaConfig.Builder lowAboveHigh = base();
        lowAboveHigh.values().set(ReplicaKeys.CLIENT_WRITE_LOW_BYTES, 2 << 20);
        assertThatThrownBy(lowAboveHigh::build).hasMessageContaining("water marks must satisfy 0 < low <= high")
                .hasMessageContaining("got 2097152/1048576");
    }

    @Test
    @DisplayName("a joining replica: an id outside the members, its own address, the file's members unchanged")
    void joiningReplica() {
        ReplicaConfig c = ReplicaConfig.builder().id(3).members(THREE).joinAddress("h", 4).build();
        assertThat(c.isMember()).isFalse();
        assertThat(c.members()).as("the initial membership stays the file's").isEqualTo(THREE);
        assertThat(c.joinAddress()).contains(new Member(3, "h", 4));
        assertThat(c.self()).isEqualTo(new Member(3, "h", 4));
        assertThat(c.clientAddress()).as("join port + 1000").isEqualTo(new Member(3, "h", 1004));
        assertThat(c.clientMembers()).as("the members' client endpoints").isEqualTo(ClusterMembers.parse("0=h:1001,1=h:1002,2=h:1003"));
        assertThat(c.toBuilder().build().joinAddress()).contains(new Member(3, "h", 4));
        assertThat(c.toString()).contains("join=3=h:4");
        assertThat(ReplicaConfig.builder().id(31).members(THREE).joinAddress("h", 31).build().id()).isEqualTo(31);
        assertThat(base().build().isMember()).isTrue();
        assertThat(base().build().joinAddress()).isEmpty();
        assertThat(base().build().clientAddress()).isEqualTo(new Member(1, "h", 1002));

        assertThatThrownBy(() -> base().joinAddress("h", 4).build()).as("a member has its file address")
                .hasMessageContaining("replica 1 is a member of 0=h:1,1=h:2,2=h:3 and listens at 1=h:2; a join address is only for");
        assertThatThrownBy(() -> ReplicaConfig.builder().id(3).members(THREE).joinAddress("h", 2).build())
                .hasMessage("join address h:2 of replica 3 is member 1's address");
        assertThatThrownBy(() -> ReplicaConfig.builder().id(3).members(THREE).joinAddress("h", 0).build())
                .hasMessageContaining("port must be 1..65535, got 0");
        assertThatThrownBy(() -> ReplicaConfig.builder().id(3).members(THREE).joinAddress("h", 65000).build())
                .hasMessageContaining("cannot derive a client port (port + 1000)");
    }

    @Test
    @DisplayName("a cluster file reads a joining replica's configuration from its id and host:port")
    void joiningReplicaFromTheClusterFile() {
        Settings s = Settings.of(Map.of("members", "0=h:1,1=h:2,2=h:3"));
        ReplicaConfig c = ReplicaKeys.replicaConfig(s, 3, "127.0.0.1:7013");
        assertThat(c.self()).isEqualTo(new Member(3, "127.0.0.1", 7013));
        assertThat(ReplicaKeys.replicaConfig(s, 4, "[::1]:7014").self()).isEqualTo(new Member(4, "::1", 7014));
        assertThat(ReplicaKeys.replicaConfig(s, 1, null).self()).isEqualTo(new Member(1, "h", 2));
        assertThatThrownBy(() -> ReplicaKeys.replicaConfig(s, 3, "127.0.0.1")).hasMessageContaining("address '127.0.0.1'")
                .hasMessageContaining("expected host:port");
        assertThatThrownBy(() -> ReplicaKeys.replicaConfig(s, 32, "127.0.0.1:7013")).hasMessageContaining("replica id must be 0..31, got 32");
        assertThatThrownBy(() -> ReplicaKeys.replicaConfig(s, 3, null)).hasMessageContaining("id 3 is not a member");
        assertThatThrownBy(() -> ReplicaKeys.replicaConfig(s, 0, "127.0.0.1:7013")).hasMessageContaining("replica 0 is a member");
    }

    private static ReplicaConfig read(Map<String, String> keys) {
        Map<String, String> m = new LinkedHashMap<>(keys);
        m.put("members", "0=h:1,1=h:2,2=h:3");
        return ReplicaKeys.replicaConfig(Settings.of(m), 1);
    }

    @Test
    @DisplayName("a cluster file without replica keys reads as the builder's defaults")
    void clusterFileDefaults() {
        assertThat(read(Map.of()).toString()).isEqualTo(base().build().toString());
    }

    @Test
    @DisplayName("a cluster file sets every scalar parameter by its key")
    void clusterFileKeys() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("data.dir", "/var/px");
        m.put("client.io.threads", "3");
        m.put("replica.io.threads", "5");
        m.put("request.queue.capacity", "10");
        m.put("proposal.queue.capacity", "11");
        m.put("decision.queue.capacity", "12");
        m.put("send.queue.capacity", "13");
        m.put("max.frame.bytes", "65536");
        m.put("max.command.bytes", "1024");
        m.put("wait", "park");
        m.put("threads", "compact");
        m.put("log.sync", "none");
        m.put("client.write.low.bytes", "10");
        m.put("client.write.high.bytes", "20");
        m.put("partial.frame.timeout.ms", "5");
        m.put("snapshot.log.bytes", "7");
        m.put("snapshot.transfer.timeout.ms", "8");
        m.put("snapshot.max.bytes", "9");
        ReplicaConfig c = read(m);
        assertThat(c.dataDirectory()).contains(Path.of("/var/px").resolve("replica-1"));
        assertThat(c.clientIoThreads()).isEqualTo(3);
        assertThat(c.replicaIoThreads()).isEqualTo(5);
        assertThat(c.requestQueueCapacity()).isEqualTo(10);
        assertThat(c.proposalQueueCapacity()).isEqualTo(11);
        assertThat(c.decisionQueueCapacity()).isEqualTo(12);
        assertThat(c.sendQueueCapacity()).isEqualTo(13);
        assertThat(c.maxFrameBytes()).isEqualTo(65536);
        assertThat(c.maxCommandBytes()).isEqualTo(1024);
        assertThat(c.waitMode()).isEqualTo(WaitMode.PARK);
        assertThat(c.threads()).isEqualTo(ThreadPlacement.COMPACT);
        assertThat(c.logSync()).isEqualTo(SyncPolicy.NONE);
        assertThat(c.clientWriteLowBytes()).isEqualTo(10);
        assertThat(c.clientWriteHighBytes()).isEqualTo(20);
        assertThat(c.partialFrameTimeout()).isEqualTo(Duration.ofMillis(5));
        assertThat(c.snapshotLogBytes()).isEqualTo(7);
        assertThat(c.snapshotTransferTimeout()).isEqualTo(Duration.ofMillis(8));
        assertThat(c.snapshotMaxBytes()).isEqualTo(9);
    }

    @Test
    @DisplayName("a cluster file's bad value is refused naming the source and the key")
    void clusterFileErrors() {
        Map<String, String> bad = new LinkedHashMap<>();
        bad.put("request.queue.capacity=0", "configuration: request.queue.capacity must be > 0, got 0");
        bad.put("max.frame.bytes=16MB", "configuration: max.frame.bytes is not a whole number: '16MB'");
        bad.put("partial.frame.timeout.ms=0", "configuration: partial.frame.timeout.ms must be > 0, got 0 ms");
        bad.put("wait=sometimes", "configuration: wait must be busy-spin, yield-park, park or auto, got 'sometimes'");
        bad.put("max.command.bytes=2000,max.frame.bytes=1000",
                "configuration: max.command.bytes (2000) exceeds max.frame.bytes (1000): a command must fit a frame");
        bad.put("client.write.low.bytes=2000,client.write.high.bytes=1000",
                "configuration: client write-buffer water marks must satisfy 0 < low <= high (client.write.low.bytes, "
                        + "client.write.high.bytes), got 2000/1000");
        for (Map.Entry<String, String> e : bad.entrySet()) {
            Map<String, String> m = new LinkedHashMap<>();
            for (String kv : e.getKey().split(",")) {
                m.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            }
            assertThatThrownBy(() -> read(m)).as(e.getKey()).hasMessage(e.getValue());
        }
    }

    @Test
    void autoWaitParksBelowFourCoresAndYieldParksFromFour() {
        WaitMode auto = WaitMode.AUTO;
        assertThat(auto.resolve(1)).isEqualTo(WaitMode.PARK);
        assertThat(auto.resolve(2)).isEqualTo(WaitMode.PARK);
        assertThat(auto.resolve(WaitMode.SPIN_FROM_CORES - 1)).isEqualTo(WaitMode.PARK);
        assertThat(auto.resolve(WaitMode.SPIN_FROM_CORES)).isEqualTo(WaitMode.YIELD_PARK);
        assertThat(auto.resolve(64)).isEqualTo(WaitMode.YIELD_PARK);
        for (WaitMode explicit : new WaitMode[] {WaitMode.BUSY_SPIN,
                WaitMode.YIELD_PARK, WaitMode.PARK}) {
            assertThat(explicit.resolve(1)).isEqualTo(explicit);
            assertThat(explicit.resolve(64)).isEqualTo(explicit);
        }
        assertThat(auto.strategy()).as("auto resolves to a concrete strategy").isNotNull();
    }
}
