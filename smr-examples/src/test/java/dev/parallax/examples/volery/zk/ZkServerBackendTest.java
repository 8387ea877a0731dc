package dev.parallax.examples.volery.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parallax.core.client.ClusterUnavailableException;
import dev.parallax.core.client.OutcomeUnknownException;
import dev.parallax.examples.volery.GetData;
import dev.parallax.examples.volery.Stat;
import dev.parallax.examples.volery.VoleryCommand;
import dev.parallax.examples.volery.ZkReply;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.GetDataResponse;
import org.apache.zookeeper.proto.ReplyHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Backends that answer late, out of order or not at all: order, back-pressure and failure codes. */
class ZkServerBackendTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private ZkServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** Holds every command until the test completes it. */
    private static final class ManualBackend implements VoleryBackend {
        final List<CompletableFuture<ZkReply>> pending = new CopyOnWriteArrayList<>();
        final List<VoleryCommand> commands = new CopyOnWriteArrayList<>();

        @Override
        public CompletableFuture<ZkReply> submit(VoleryCommand command) {
            CompletableFuture<ZkReply> f = new CompletableFuture<>();
            commands.add(command);
            pending.add(f);
            return f;
        }
    }

    private static Stat stat(long zxid, int dataLength) {
        return new Stat(zxid, zxid, 0, 0, 0, 0, 0, 0, dataLength, 0, zxid);
    }

    @Test
    void repliesKeepRequestOrderAndPingsAreNotHeldBehindThem() throws Exception {
        ManualBackend backend = new ManualBackend();
        server = new ZkServer(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(1), backend, registry);
        server.start();
        try (RawZkConnection c = new RawZkConnection(server.port())) {
            c.handshake(0, new byte[16], 10_000);
            for (int xid = 1; xid <= 3; xid++) {
                c.sendRequest(xid, ZkOp.GET_DATA.code(), new GetDataRequest("/n" + xid, false));
            }
            ZkTesting.await("three commands", () -> backend.pending.size() == 3);
            assertThat(backend.commands).containsExactly(new GetData("/n1"),
                    new GetData("/n2"), new GetData("/n3"));
            c.sendRequest(-2, ZkOp.PING.code(), null);
            assertThat(c.readReply(null).getXid()).isEqualTo(-2);

            long[] replyZxids = {30, 20, 40}; // the replies' own zxids; the Stats show others
            for (int i = 2; i >= 0; i--) {
                backend.pending.get(i).complete(ZkReply.data(("d" + (i + 1)).getBytes(StandardCharsets.UTF_8),
                        stat(10 - i, 2)).withZxid(replyZxids[i]));
            }
            long[] headerZxids = {30, 30, 40}; // max(seen, reply's): never decreasing
            for (int xid = 1; xid <= 3; xid++) {
                GetDataResponse body = new GetDataResponse();
                ReplyHeader header = c.readReply(body);
                assertThat(header.getXid()).isEqualTo(xid);
                assertThat(header.getErr()).isZero();
                assertThat(new String(body.getData(), StandardCharsets.UTF_8)).isEqualTo("d" + xid);
                assertThat(header.getZxid()).as("reply %d's header zxid", xid).isEqualTo(headerZxids[xid - 1]);
            }
            c.sendRequest(-2, ZkOp.PING.code(), null);
            assertThat(c.readReply(null).getZxid()).as("a ping shows the connection's last zxid").isEqualTo(40);
        }
    }

    @Test
    void aConnectionWithTooManyRequestsInFlightIsNotReadUntilTheyDrain() throws Exception {
        ManualBackend backend = new ManualBackend();
        server = new ZkServer(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(1).withMaxPendingPerConnection(2),
                backend, registry);
        server.start();
        try (RawZkConnection c = new RawZkConnection(server.port())) {
            c.handshake(0, new byte[16], 10_000);
            c.sendRequest(1, ZkOp.GET_DATA.code(), new GetDataRequest("/a", false));
            c.sendRequest(2, ZkOp.GET_DATA.code(), new GetDataRequest("/b", false));
            ZkTesting.await("two commands", () -> backend.pending.size() == 2);
            c.sendRequest(3, ZkOp.GET_DATA.code(), new GetDataRequest("/c", false));
            Thread.sleep(300); // sleep is the scenario: time passes to show the third request is not read
            assertThat(backend.pending).as("the third request waits in the socket").hasSize(2);

            backend.pending.get(0).complete(ZkReply.data(new byte[0], stat(1, 0)));
            assertThat(c.readReply(new GetDataResponse()).getXid()).isEqualTo(1);
            ZkTesting.await("the third command", () -> backend.pending.size() == 3);
            backend.pending.get(1).complete(ZkReply.data(new byte[0], stat(1, 0)));
            backend.pending.get(2).complete(ZkReply.data(new byte[0], stat(1, 0)));
            assertThat(c.readReply(new GetDataResponse()).getXid()).isEqualTo(2);
            assertThat(c.readReply(new GetDataResponse()).getXid()).isEqualTo(3);
        }
    }

    @Test
    void backendFailuresBecomeConnectionLossOrSystemErrorAndTheSessionGoesOn() throws Exception {
        LocalVoleryBackend local = new LocalVoleryBackend();
        VoleryBackend failing = command -> switch (command.path()) {
            case "/unavailable" -> CompletableFuture.failedFuture(new ClusterUnavailableException("no leader"));
            case "/unknown" -> CompletableFuture.failedFuture(new OutcomeUnknownException("timed out"));
            case "/boom" -> CompletableFuture.failedFuture(new IllegalStateException("bug"));
            case "/throws" -> throw new IllegalStateException("synchronous bug");
            default -> local.submit(command);
        };
        server = new ZkServer(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(1), failing, registry);
        server.start();
        ZooKeeper zk = ZkTesting.connect(server);
        try {
            assertThatThrownBy(() -> zk.getData("/unavailable", false, null))
                    .isInstanceOf(KeeperException.ConnectionLossException.class);
            assertThatThrownBy(() -> zk.setData("/unknown", new byte[1], -1))
                    .isInstanceOf(KeeperException.ConnectionLossException.class);
            assertThatThrownBy(() -> zk.exists("/boom", false)).isInstanceOf(KeeperException.SystemErrorException.class);
            assertThatThrownBy(() -> zk.exists("/throws", false)).isInstanceOf(KeeperException.SystemErrorException.class);
            assertThat(zk.create("/fine", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)).isEqualTo("/fine");
            assertThat(zk.getState()).isEqualTo(ZooKeeper.States.CONNECTED);
        } finally {
            zk.close();
        }
        assertThat(registry.get("parallax.volery.zk.failures").tag("kind", "unavailable").counter().count()).isEqualTo(1);
        assertThat(registry.get("parallax.volery.zk.failures").tag("kind", "outcome-unknown").counter().count()).isEqualTo(1);
        assertThat(registry.get("parallax.volery.zk.failures").tag("kind", "internal").counter().count()).isEqualTo(2);
    }
}
