package dev.parallax.examples.cli;

import dev.parallax.examples.process.ClusterSecretFile;
import dev.parallax.core.testkit.Await;
import dev.parallax.examples.volery.zk.LocalVoleryBackend;
import dev.parallax.examples.volery.zk.ZkServer;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The session secret of a Volery cluster's ZooKeeper front ends comes from the cluster secret, which
 * only the replicas hold: a genuine session moves between the front ends of one cluster, while a
 * password forged from the public cluster file (how the secret used to be derived) or made up is
 * refused (SessionExpired). Without a cluster secret each front end has a random secret of its own
 * and a session stays where it was created. The official ZooKeeper client reconnects with a given
 * session id and password.
 */
class VoleryFrontEndSessionSecretTest {
    private static final int TIMEOUT_MS = 10_000;

    @TempDir
    Path dir;

    private final LocalVoleryBackend backend = new LocalVoleryBackend();
    private final List<ZkServer> servers = new ArrayList<>();

    @AfterEach
    void stop() {
        servers.forEach(ZkServer::close);
    }

    private ClusterFile volery(boolean withSecret) throws Exception {
        Properties p = new Properties();
        p.setProperty("members", "0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002");
        p.setProperty("ordering", "multi-ring");
        p.setProperty("multiring.rings", "1");
        p.setProperty("execution", "s-smr");
        p.setProperty("service", "volery");
        p.setProperty("zookeeper", "0=127.0.0.1:2181,1=127.0.0.1:2182,2=127.0.0.1:2183");
        if (withSecret) {
            p.putAll(ClusterSecretFile.write(dir.resolve("cluster.secret")));
        }
        return ClusterFile.of(p);
    }

    private ZkServer frontEnd(ClusterFile file, int id) throws Exception {
        ZkServer s = new ZkServer(VoleryService.serverConfig(file, id, "127.0.0.1", 0).withIoThreads(1), backend);
        servers.add(s);
        s.start();
        return s;
    }

    /** Whether {@code server} takes session {@code id} with {@code password} (else: SessionExpired). */
    private static boolean accepts(ZkServer server, long id, byte[] password) throws Exception {
        ZooKeeper zk = new ZooKeeper("127.0.0.1:" + server.port(), TIMEOUT_MS, e -> { }, id, password);
        try {
            Await.until("an answer to the handshake", Duration.ofSeconds(30),
                    () -> zk.getState() == ZooKeeper.States.CONNECTED || !zk.getState().isAlive());
            return zk.getState() == ZooKeeper.States.CONNECTED && zk.getSessionId() == id;
        } finally {
            zk.close();
        }
    }

    /** A session opened at {@code server}: its id and password. */
    private static Object[] openSession(ZkServer server) throws Exception {
        ZooKeeper zk = new ZooKeeper("127.0.0.1:" + server.port(), TIMEOUT_MS, e -> { });
        Await.until("connected", Duration.ofSeconds(30), () -> zk.getState() == ZooKeeper.States.CONNECTED);
        Object[] session = {zk.getSessionId(), zk.getSessionPasswd()};
        // dropped without closeSession: the session stays alive at the server for its time-out
        zk.getTestable().injectSessionExpiration();
        return session;
    }

    /** The password the front ends used to accept: a MAC under a SHA-256 of the public cluster file. */
    private static byte[] passwordFromTheClusterFile(ClusterFile file, long id) throws Exception {
        byte[] oldSecret = MessageDigest.getInstance("SHA-256").digest(("parallax volery sessions\n" + file.members() + "\n"
                + file.zookeeper().map(Object::toString).orElse("")).getBytes(StandardCharsets.UTF_8));
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(oldSecret, "HmacSHA256"));
        byte[] tag = mac.doFinal(ByteBuffer.allocate(12).putLong(id).putInt(TIMEOUT_MS).array());
        return ByteBuffer.allocate(16).putInt(TIMEOUT_MS).put(tag, 0, 12).array();
    }

    @Test
    void withAClusterSecretAGenuineSessionMovesAndForgedPasswordsAreRefused() throws Exception {
        ClusterFile file = volery(true);
        ZkServer a = frontEnd(file, 0);
        ZkServer b = frontEnd(file, 1);
        Object[] session = openSession(a);
        long id = (long) session[0];
        byte[] genuine = (byte[]) session[1];

        assertThat(accepts(b, id, passwordFromTheClusterFile(file, id))).as("a password forged from the cluster file")
                .isFalse();
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        ByteBuffer.wrap(random).putInt(0, TIMEOUT_MS);
        assertThat(accepts(b, id, random)).as("a random password").isFalse();
        assertThat(accepts(a, id, passwordFromTheClusterFile(file, id))).as("forged, at the session's own front end")
                .isFalse();
        assertThat(accepts(b, id, genuine)).as("the genuine password from front end 0, at front end 1").isTrue();
    }

    @Test
    void withoutAClusterSecretEachFrontEndHasASecretOfItsOwn() throws Exception {
        ClusterFile file = volery(false);
        ZkServer a = frontEnd(file, 0);
        ZkServer b = frontEnd(file, 1);
        Object[] session = openSession(a);
        long id = (long) session[0];
        assertThat(accepts(b, id, passwordFromTheClusterFile(file, id))).as("a password forged from the cluster file")
                .isFalse();
        assertThat(accepts(b, id, (byte[]) session[1])).as("the session does not move").isFalse();
        assertThat(accepts(a, id, (byte[]) session[1])).as("it lives where it was created").isTrue();
    }
}
