package dev.parallax.examples.volery.zk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parallax.examples.volery.Create;
import dev.parallax.examples.volery.SetData;
import dev.parallax.examples.volery.VoleryCommand;
import dev.parallax.examples.volery.ZkReply;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.proto.Create2Response;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.ExistsRequest;
import org.apache.zookeeper.proto.ExistsResponse;
import org.apache.zookeeper.proto.ReplyHeader;
import org.apache.zookeeper.proto.SetDataRequest;
import org.apache.zookeeper.proto.SetDataResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** create2 answered from the create's own reply, and the reply zxid in ZooKeeper's reply headers. */
class ZkServerZxidTest {
    private ZkServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** A local backend that records the commands it executes. */
    private static final class RecordingBackend implements VoleryBackend {
        final LocalVoleryBackend local = new LocalVoleryBackend(() -> 1_000L);
        final List<VoleryCommand> commands = new CopyOnWriteArrayList<>();

        @Override
        public CompletableFuture<ZkReply> submit(VoleryCommand command) {
            commands.add(command);
            return local.submit(command);
        }
    }

    private void start(VoleryBackend backend) throws Exception {
        server = new ZkServer(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(2), backend);
        server.start();
    }

    @Test
    void create2IsOneCommandAndItsStatIsWhatAFollowingExistsShows() throws Exception {
        RecordingBackend backend = new RecordingBackend();
        start(backend);
        ZooKeeper zk = ZkTesting.connect(server);
        try {
            zk.create("/p", new byte[] {1}, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            zk.setData("/p", new byte[] {2, 2}, -1);
            backend.commands.clear();
            Stat created = new Stat();
            String path = zk.create("/p/s-", new byte[] {7, 7, 7}, ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    CreateMode.PERSISTENT_SEQUENTIAL, created);
            assertThat(path).isEqualTo("/p/s-0000000000");
            assertThat(backend.commands).as("create2 is one backend command")
                    .containsExactly(new Create("/p/s-", new byte[] {7, 7, 7},
                            dev.parallax.examples.volery.CreateMode.PERSISTENT_SEQUENTIAL));
            assertThat(zk.exists(path, false)).isEqualTo(created);
            assertThat(created.getCzxid()).isEqualTo(3).isEqualTo(created.getMzxid()).isEqualTo(created.getPzxid());
            assertThat(created.getDataLength()).isEqualTo(3);
            assertThat(created.getCtime()).isEqualTo(1_000L);
        } finally {
            zk.close();
        }
    }

    @Test
    void create2AnswersTheCreatesOwnStatEvenWhenAnotherWriterChangesTheNodeRightAfter() throws Exception {
        LocalVoleryBackend local = new LocalVoleryBackend();
        // another writer's setData lands between the create and anything the front end could ask after it
        VoleryBackend racing = command -> local.submit(command).thenCompose(reply -> {
            if (command instanceof Create && reply.isOk()) {
                return local.submit(new SetData(reply.path(), new byte[] {9}, -1)).thenApply(x -> reply);
            }
            return CompletableFuture.completedFuture(reply);
        });
        start(racing);
        ZooKeeper zk = ZkTesting.connect(server);
        try {
            Stat created = new Stat();
            zk.create("/r", new byte[] {1, 2}, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT, created);
            assertThat(created.getVersion()).isZero();
            assertThat(created.getDataLength()).isEqualTo(2);
            assertThat(created.getMzxid()).isEqualTo(created.getCzxid()).isEqualTo(1);
            Stat now = zk.exists("/r", false);
            assertThat(now.getVersion()).as("the other writer's change, not in create2's Stat").isEqualTo(1);
            assertThat(now.getMzxid()).isEqualTo(2);
        } finally {
            zk.close();
        }
    }

    @Test
    void concurrentCreate2sEachGetTheirOwnNodesStat() throws Exception {
        start(new LocalVoleryBackend());
        int writers = 4;
        int each = 25;
        List<ZooKeeper> clients = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            for (int i = 0; i < writers; i++) {
                clients.add(ZkTesting.connect(server));
            }
            clients.get(0).create("/c", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            List<Future<List<Object[]>>> results = new ArrayList<>();
            for (ZooKeeper zk : clients) {
                results.add(pool.submit(() -> {
                    List<Object[]> mine = new ArrayList<>();
                    for (int k = 0; k < each; k++) {
                        Stat stat = new Stat();
                        String path = zk.create("/c/n-", new byte[] {(byte) k}, ZooDefs.Ids.OPEN_ACL_UNSAFE,
                                CreateMode.PERSISTENT_SEQUENTIAL, stat);
                        mine.add(new Object[] {path, stat});
                    }
                    return mine;
                }));
            }
            List<Long> czxids = new ArrayList<>();
            for (Future<List<Object[]>> f : results) {
                for (Object[] created : f.get(ZkTesting.WAIT_SECONDS, TimeUnit.SECONDS)) {
                    Stat stat = (Stat) created[1];
                    assertThat(clients.get(0).exists((String) created[0], false)).as("%s", created[0]).isEqualTo(stat);
                    // the node's sequence number is the parent's cversion before the create, the czxid the
                    // create's own zxid: /c was created at zxid 1, so child n was created at zxid n + 2
                    long sequence = Long.parseLong(((String) created[0]).substring("/c/n-".length()));
                    assertThat(stat.getCzxid()).isEqualTo(sequence + 2).isEqualTo(stat.getPzxid());
                    czxids.add(stat.getCzxid());
                }
            }
            assertThat(czxids).doesNotHaveDuplicates().hasSize(writers * each);
        } finally {
            pool.shutdownNow();
            for (ZooKeeper zk : clients) {
                zk.close();
            }
        }
    }

    @Test
    void replyHeadersCarryTheZxidTheCommandExecutedAtAndNeverDecrease() throws Exception {
        LocalVoleryBackend local = new LocalVoleryBackend();
        start(local);
        try (RawZkConnection c = new RawZkConnection(server.port())) {
            c.handshake(0, new byte[16], 10_000);
            c.sendRequest(1, ZkOp.CREATE2.code(), new CreateRequest("/a", new byte[0], new ArrayList<>(ZkOperations.OPEN_ACL), 0));
            Create2Response created = new Create2Response();
            assertThat(c.readReply(created).getZxid()).isEqualTo(1).isEqualTo(created.getStat().getCzxid());
            // another connection's writes move the backend on; this connection sees their zxids only
            // through its own replies
            local.submit(new Create("/b", new byte[0], dev.parallax.examples.volery.CreateMode.PERSISTENT));
            local.submit(new Create("/c", new byte[0], dev.parallax.examples.volery.CreateMode.PERSISTENT));
            c.sendRequest(2, ZkOp.EXISTS.code(), new ExistsRequest("/a", false));
            ReplyHeader read = c.readReply(new ExistsResponse());
            assertThat(read.getZxid()).as("a read: the backend's last zxid, not the node's").isEqualTo(3);
            c.sendRequest(3, ZkOp.SET_DATA.code(), new SetDataRequest("/a", new byte[] {1}, 7));
            ReplyHeader badVersion = c.readReply(new SetDataResponse());
            assertThat(badVersion.getErr()).isEqualTo(dev.parallax.examples.volery.ZkCode.BADVERSION.code());
            assertThat(badVersion.getZxid()).as("a failed write consumed zxid 4").isEqualTo(4);
            c.sendRequest(4, ZkOp.DELETE.code(), new DeleteRequest("/b", -1));
            assertThat(c.readReply(null).getZxid()).as("a delete's own zxid").isEqualTo(5).isEqualTo(local.lastZxid());
            c.sendRequest(5, ZkOp.SYNC.code(), new org.apache.zookeeper.proto.SyncRequest("/"));
            assertThat(c.readReply(new org.apache.zookeeper.proto.SyncResponse()).getZxid())
                    .as("a reply the server answers itself keeps the last zxid").isEqualTo(5);
        }
    }

    @Test
    void aReconnectingClientsLastSeenZxidIsTheFloorOfItsHeaders() throws Exception {
        start(new LocalVoleryBackend());
        try (RawZkConnection c = new RawZkConnection(server.port())) {
            c.handshake(0, new byte[16], 10_000, 1_000);
            c.sendRequest(-2, ZkOp.PING.code(), null);
            assertThat(c.readReply(null).getZxid()).isEqualTo(1_000);
            c.sendRequest(1, ZkOp.EXISTS.code(), new ExistsRequest("/", false));
            assertThat(c.readReply(new ExistsResponse()).getZxid()).as("the backend is at 0: never below what the client saw")
                    .isEqualTo(1_000);
        }
    }
}
