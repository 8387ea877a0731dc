package dev.parallax.examples.volery;

import dev.parallax.core.GroupSet;
import dev.parallax.scheduler.ssmr.IdealSsmr;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Multi}: all or nothing with ZooKeeper's result codes ({@link MultiRun} rules 1-4), on one
 * tree and as one S-SMR command over three partitions ({@link IdealSsmr}), where every involved
 * replica must reply alike.
 */
class MultiTest {
    private static final int P = 3;
    private final IdealSsmr<VoleryPartition> ssmr = VoleryPartitionTest.ideal(P);
    private final VoleryOracle oracle = new VoleryOracle(P);

    private ZkReply run(VoleryCommand command) {
        GroupSet involved = oracle.route(command);
        Map<String, String> outcomes = ssmr.run(command.encode(), involved);
        assertThat(new HashSet<>(outcomes.values())).as("%s: %s", command, outcomes).hasSize(1);
        return ZkReply.decode(HexFormat.of().parseHex(outcomes.values().iterator().next()));
    }

    private String ownedBy(int partition, String prefix) {
        for (int i = 0; ; i++) {
            String path = "/" + prefix + i;
            if (oracle.partitionOf(path) == partition) {
                return path;
            }
        }
    }

    private static Create create(String path) {
        return new Create(path, new byte[] {7}, CreateMode.PERSISTENT, 100);
    }

    @Test
    @DisplayName("rules 1 and 3: a multi over three partitions checks each node against its owner's version and applies everything")
    void aMultiAcrossPartitionsAppliesEverythingWithTheOwnersVersions() {
        String x = ownedBy(1, "x");
        String y = ownedBy(2, "y");
        run(create(x));
        run(create(y));
        run(new SetData(x, new byte[] {1}, 0, 150)); // only partition 1 knows x is at version 1
        ZkReply reply = run(new Multi(List.of(new Check(x, 1), new SetData(y, new byte[] {2, 3}, 0),
                new SetData(y, new byte[] {4}, 1), new Create(x + "/c", new byte[0], CreateMode.PERSISTENT),
                new Delete(x + "/c", 0), new Create("/seq-", new byte[0], CreateMode.PERSISTENT_SEQUENTIAL)), 300));
        assertThat(reply.code()).isEqualTo(ZkCode.OK);
        assertThat(reply.results()).hasSize(6);
        assertThat(reply.results().get(2).stat().version()).isEqualTo(2);
        assertThat(reply.results().get(2).stat().dataLength()).isEqualTo(1);
        assertThat(reply.results().get(2).stat().mtime()).isEqualTo(300);
        assertThat(reply.results().get(5).path()).isEqualTo("/seq-0000000002");
        assertThat(run(new GetData(y)).data()).containsExactly(4);
        assertThat(run(new Exists(y)).stat().version()).isEqualTo(2);
        assertThat(run(new Exists(x + "/c")).code()).isEqualTo(ZkCode.NONODE);
        for (int p = 0; p < P; p++) {
            assertThat(ssmr.replica(p, 0).size()).as("partition %d", p).isEqualTo(4);
        }
    }

    @Test
    @DisplayName("rule 1: a failed operation rolls every change back everywhere; results are OK, the error, then RUNTIMEINCONSISTENCY")
    void aFailedOperationChangesNothingAnywhere() {
        String x = ownedBy(1, "x");
        String y = ownedBy(2, "y");
        run(create(x));
        run(create(y));
        run(new SetData(x, new byte[] {1}, 0, 150));
        long[] before = digests();
        ZkReply reply = run(new Multi(List.of(new Create("/new", new byte[0], CreateMode.PERSISTENT),
                new SetData(y, new byte[] {9}, 0), new Delete(x, 0), new Check(y, 0)), 300));
        assertThat(reply.code()).as("x is at version 1 at its owner").isEqualTo(ZkCode.BADVERSION);
        assertThat(reply.results()).extracting(ZkReply::code).containsExactly(ZkCode.OK, ZkCode.OK,
                ZkCode.BADVERSION, ZkCode.RUNTIMEINCONSISTENCY);
        assertThat(run(new Exists("/new")).code()).isEqualTo(ZkCode.NONODE);
        assertThat(run(new GetData(y)).data()).containsExactly(7);
        long[] after = digests();
        for (int p = 0; p < P; p++) {
            // the failed multi consumed a global zxid (as ZooKeeper's error transaction does): compare trees only
            assertThat(ZnodeTree.restore(treeOf(p)).size()).isEqualTo(3);
        }
        assertThat(after).hasSize(before.length);
    }

    @Test
    @DisplayName("a multi's ephemeral create belongs to its session; a multi of deletes empties a subtree (zkCli deleteall)")
    void ephemeralsAndDeletesInAMulti() {
        run(create("/app"));
        run(create("/app/a"));
        ZkReply reply = run(new Multi(List.of(Create.ephemeral("/app/e", new byte[0], false, 0x77L, 5_000)), 10));
        assertThat(reply.results().get(0).stat().ephemeralOwner()).isEqualTo(0x77L);
        ZkReply deleted = run(new Multi(List.of(new Delete("/app/a", -1), new Delete("/app/e", -1),
                new Delete("/app", -1))));
        assertThat(deleted.isOk()).isTrue();
        assertThat(run(new GetChildren("/")).children()).isEmpty();
    }

    @Test
    @DisplayName("ZnodeSessions over three partitions: an ephemeral node is everywhere; a tick expires its session at every partition alike")
    void sessionExpiryIsOneDecisionAtEveryPartition() {
        String x = ownedBy(1, "x");
        assertThat(run(Create.ephemeral(x, new byte[] {1}, false, 0x51L, 1_000).withTime(10_000)).isOk()).isTrue();
        assertThat(run(Create.ephemeral("/t", new byte[0], false, 0x52L, 1_000).withTime(10_000)).isOk()).isTrue();
        ZkReply touched = run(new SessionTick(new long[] {0x52L}, 10_900));
        assertThat(SessionTick.statuses(touched)).containsExactly(ZnodeSessions.Status.LIVE);
        ZkReply expiring = run(new SessionTick(new long[] {0x52L}, 11_001)); // 0x51 unlisted since 10,000
        assertThat(SessionTick.statuses(expiring)).containsExactly(ZnodeSessions.Status.LIVE);
        assertThat(SessionTick.liveSessions(expiring)).isEqualTo(1);
        ZkReply asked = run(new SessionTick(new long[] {0x51L}, 11_001));
        assertThat(SessionTick.statuses(asked)).containsExactly(ZnodeSessions.Status.ENDED);
        assertThat(run(new Exists(x)).code()).isEqualTo(ZkCode.NONODE);
        assertThat(run(Create.ephemeral("/again", new byte[0], false, 0x51L, 1_000).withTime(11_002)).code())
                .isEqualTo(ZkCode.SESSIONEXPIRED);
        assertThat(run(new CloseSession(0x52L, 11_003)).isOk()).isTrue();
        assertThat(run(new GetChildren("/")).children()).isEmpty();
        for (int p = 0; p < P; p++) {
            assertThat(ssmr.replica(p, 0).size()).as("partition %d", p).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("on one tree (the in-process backend) the same multi runs without an exchange")
    void onOneTree() {
        ZnodeTree tree = new ZnodeTree();
        tree.create("/a", new byte[0], CreateMode.PERSISTENT, 1, 1);
        ZkReply ok = new Multi(List.of(new SetData("/a", new byte[] {1}, 0), new Check("/a", 1))).applyTo(tree, 2, 2);
        assertThat(ok.isOk()).isTrue();
        long digest = tree.digest();
        ZkReply failed = new Multi(List.of(new SetData("/a", new byte[] {2}, 1), new Check("/missing", -1)))
                .applyTo(tree, 3, 3);
        assertThat(failed.code()).isEqualTo(ZkCode.NONODE);
        assertThat(tree.digest()).as("rolled back").isEqualTo(digest);
    }

    private long[] digests() {
        long[] d = new long[P];
        for (int p = 0; p < P; p++) {
            d[p] = ssmr.replica(p, 0).digest();
        }
        return d;
    }

    private byte[] treeOf(int p) {
        byte[] snap = ssmr.replica(p, 0).snapshotBytes();
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(snap);
        b.position(4 + 1 + 8 + 8);
        byte[] tree = new byte[b.getInt()];
        b.get(tree);
        return tree;
    }
}
