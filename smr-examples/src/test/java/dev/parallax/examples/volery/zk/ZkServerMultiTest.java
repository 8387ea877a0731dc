package dev.parallax.examples.volery.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** multi through the official client and Curator's transactions: all or nothing, ZooKeeper's results. */
class ZkServerMultiTest {
    private static final List<org.apache.zookeeper.data.ACL> OPEN = ZooDefs.Ids.OPEN_ACL_UNSAFE;
    private ZkServer server;
    private ZooKeeper zk;

    @BeforeEach
    void start() throws Exception {
        server = new ZkServer(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(1), new LocalVoleryBackend());
        server.start();
        zk = ZkTesting.connect(server);
    }

    @AfterEach
    void stop() throws Exception {
        zk.close();
        server.close();
    }

    @Test
    @DisplayName("a successful multi returns each operation's result (create2 with its Stat)")
    void aSuccessfulMulti() throws Exception {
        zk.create("/a", new byte[] {1}, OPEN, CreateMode.PERSISTENT);
        List<OpResult> results = zk.multi(List.of(Op.check("/a", 0), Op.setData("/a", new byte[] {2}, 0),
                Op.create("/a/b", new byte[0], OPEN, CreateMode.PERSISTENT),
                Op.create("/a/e", new byte[0], OPEN, CreateMode.EPHEMERAL_SEQUENTIAL),
                Op.delete("/a/b", -1)));
        assertThat(results).hasSize(5);
        assertThat(results.get(0)).isInstanceOf(OpResult.CheckResult.class);
        assertThat(((OpResult.SetDataResult) results.get(1)).getStat().getVersion()).isEqualTo(1);
        assertThat(((OpResult.CreateResult) results.get(2)).getPath()).isEqualTo("/a/b");
        OpResult.CreateResult e = (OpResult.CreateResult) results.get(3);
        assertThat(e.getPath()).isEqualTo("/a/e0000000001");
        assertThat(results.get(4)).isInstanceOf(OpResult.DeleteResult.class);
        assertThat(zk.exists("/a/e0000000001", false).getEphemeralOwner()).isEqualTo(zk.getSessionId());
        assertThat(zk.getChildren("/a", false)).containsExactly("e0000000001");
    }

    @Test
    @DisplayName("a failed multi changes nothing; its results are OK, the error, then RUNTIMEINCONSISTENCY")
    void aFailedMultiChangesNothing() throws Exception {
        zk.create("/a", new byte[] {1}, OPEN, CreateMode.PERSISTENT);
        KeeperException failure = org.junit.jupiter.api.Assertions.assertThrows(KeeperException.class,
                () -> zk.multi(List.of(Op.create("/x", new byte[0], OPEN, CreateMode.PERSISTENT),
                        Op.check("/a", 5), Op.delete("/a", -1))));
        assertThat(failure).isInstanceOf(KeeperException.BadVersionException.class);
        assertThat(failure.getResults()).extracting(r -> ((OpResult.ErrorResult) r).getErr())
                .containsExactly(0, KeeperException.Code.BADVERSION.intValue(),
                        KeeperException.Code.RUNTIMEINCONSISTENCY.intValue());
        assertThat(zk.exists("/x", false)).isNull();
        assertThat(zk.exists("/a", false)).isNotNull();
        assertThatThrownBy(() -> zk.multi(List.of(Op.create("/c", new byte[0], OPEN, CreateMode.PERSISTENT_WITH_TTL, 1000L))))
                .isInstanceOf(KeeperException.UnimplementedException.class);
    }

    @Test
    @DisplayName("Curator's transactions commit as one multi")
    void curatorTransactions() throws Exception {
        try (CuratorFramework curator = CuratorFrameworkFactory.newClient("127.0.0.1:" + server.port(), 10_000,
                10_000, new RetryNTimes(3, 100))) {
            curator.start();
            CuratorOp create = curator.transactionOp().create().forPath("/t", new byte[] {1});
            CuratorOp set = curator.transactionOp().setData().forPath("/t", new byte[] {2});
            List<CuratorTransactionResult> results = curator.transaction().forOperations(create, set);
            assertThat(results).hasSize(2);
            assertThat(curator.getData().forPath("/t")).containsExactly(2);
            CuratorOp bad = curator.transactionOp().delete().withVersion(7).forPath("/t");
            CuratorOp create2 = curator.transactionOp().create().forPath("/u");
            assertThatThrownBy(() -> curator.transaction().forOperations(create2, bad))
                    .isInstanceOf(KeeperException.BadVersionException.class);
            assertThat(curator.checkExists().forPath("/u")).isNull();
        }
    }
}
