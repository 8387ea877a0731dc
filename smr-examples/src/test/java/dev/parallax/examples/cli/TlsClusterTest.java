package dev.parallax.examples.cli;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.ClusterUnavailableException;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.wire.tls.ClusterCertificates;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.testkit.Await;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import dev.parallax.examples.kv.KvReply;
import dev.parallax.examples.kv.KvStateMachine;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Three key-value replicas in this JVM configured by a cluster file with mutual TLS between them
 * and TLS on their client ports: Multi-Paxos orders commands over the TLS links,
 * a client trusting the CA is served and the replicas converge, nothing is refused among the
 * rightful parties, and a plain client is refused and counted without reaching the cluster.
 */
class TlsClusterTest {
    private final List<Replica> replicas = new ArrayList<>();
    private final List<KvStateMachine> stores = new ArrayList<>();
    private final List<MeterRegistry> registries = new ArrayList<>();
    private final List<SmrClient> clients = new ArrayList<>();

    @AfterEach
    void stop() {
        clients.forEach(SmrClient::close);
        replicas.forEach(Replica::close);
    }

    private ClusterFile start(Path dir) throws Exception {
        ClusterCertificates certs = ClusterCertificates.generate(dir.resolve("tls"), 3);
        Properties p = new Properties();
        p.setProperty("members", LocalPorts.endpoints(3));
        p.setProperty("clients", LocalPorts.endpoints(3));
        p.setProperty("client.io.threads", "1");
        p.setProperty("paxos.heartbeat.ms", "30");
        p.setProperty("paxos.suspect.ms", "300");
        p.putAll(ClusterFile.tlsSettings(certs, true));
        ClusterFile file = ClusterFile.of(p);
        for (int i = 0; i < 3; i++) {
            file.checkTlsFiles(i);
            KvStateMachine store = new KvStateMachine();
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            stores.add(store);
            registries.add(registry);
            replicas.add(ReplicaCommand.kvReplica(file, i, store).meterRegistry(registry).bootstrap(true).build());
        }
        replicas.forEach(Replica::start);
        return file;
    }

    private SmrClient client(ClientConfig.Builder b, Duration invokeTimeout) {
        SmrClient c = SmrClient.connect(b.retryTimeout(Duration.ofMillis(500)).invokeTimeout(invokeTimeout).build());
        clients.add(c);
        return c;
    }

    private double refused(int replica, String kind, String reason) {
        Counter c = registries.get(replica).find("parallax.net.refused").tag("kind", kind).tag("reason", reason).counter();
        return c == null ? 0 : c.count();
    }

    private static java.nio.ByteBuffer kv(KvOp op, String... args) {
        byte[][] bytes = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            bytes[i] = args[i].getBytes(StandardCharsets.UTF_8);
        }
        return KvCommand.of(op, bytes).encode();
    }

    @Test
    void aMutualTlsClusterOrdersCommandsAndServesTlsClients(@TempDir Path dir) throws Exception {
        ClusterFile file = start(dir);
        SmrClient c = client(ClientConfig.builder(file.replica(0).clientMembers()).tlsTrust(file.clientTrust().orElseThrow()),
                Duration.ofSeconds(20));
        List<CompletableFuture<java.nio.ByteBuffer>> writes = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            writes.add(c.invoke(kv(KvOp.SET, "k" + (i % 20), "v" + i)));
        }
        for (CompletableFuture<java.nio.ByteBuffer> w : writes) {
            assertThat(KvReply.decode(w.get(30, TimeUnit.SECONDS))).isInstanceOf(KvReply.Ok.class);
        }
        KvReply last = KvReply.decode(c.invoke(kv(KvOp.GET, "k19")).get(30, TimeUnit.SECONDS));
        assertThat(new String(((KvReply.Bulk) last).value(), StandardCharsets.UTF_8)).isEqualTo("v199");

        Await.until(Duration.ofSeconds(30),
                () -> stores.get(0).digest() == stores.get(1).digest() && stores.get(1).digest() == stores.get(2).digest(),
                () -> "every replica's store to have the same digest");
        assertThat(stores).as("every replica executed the same commands").allMatch(s -> s.digest() == stores.get(0).digest());
        for (int i = 0; i < 3; i++) {
            for (String kind : new String[] {"replica", "client"}) {
                for (String reason : new String[] {"tls", "identity"}) {
                    assertThat(refused(i, kind, reason)).as("replica %d refused %s/%s", i, kind, reason).isZero();
                }
            }
        }
        assertThat(file.describeRuntime(2)).contains("tls mutual between replicas, on client ports");
    }

    @Test
    void aPlainClientIsRefusedAndCounted(@TempDir Path dir) throws Exception {
        ClusterFile file = start(dir);
        SmrClient plain = client(ClientConfig.builder(file.replica(0).clientMembers()), Duration.ofSeconds(3));
        assertThatThrownBy(() -> plain.invoke(kv(KvOp.SET, "k", "plain")).get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(ClusterUnavailableException.class);
        assertThat(refused(0, "client", "tls") + refused(1, "client", "tls") + refused(2, "client", "tls"))
                .as("refused plain connections").isPositive();
        SmrClient tls = client(ClientConfig.builder(file.replica(0).clientMembers()).tlsTrust(file.clientTrust().orElseThrow()),
                Duration.ofSeconds(20));
        assertThat(KvReply.decode(tls.invoke(kv(KvOp.GET, "k")).get(30, TimeUnit.SECONDS)))
                .as("the plain SET never executed").isInstanceOf(KvReply.Nil.class);
    }
}
