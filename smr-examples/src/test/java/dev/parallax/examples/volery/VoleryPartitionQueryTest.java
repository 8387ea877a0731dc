package dev.parallax.examples.volery;

import dev.parallax.core.GroupSet;
import dev.parallax.scheduler.ssmr.IdealSsmr;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link VoleryPartition#query}: getData, exists and getChildren without a watch, answered outside the
 * order at the path's owner exactly as the ordered read, changing nothing; everything else refused.
 */
class VoleryPartitionQueryTest {
    private static final int P = 3;
    private final IdealSsmr<VoleryPartition> ssmr = VoleryPartitionTest.ideal(P);
    private final VoleryOracle oracle = new VoleryOracle(P);

    /** Runs {@code command} in the order, where the oracle sends it; the reply every involved replica gave. */
    private String ordered(VoleryCommand command) {
        Map<String, String> outcomes = ssmr.run(command.encode(), oracle.route(command));
        assertThat(outcomes.values()).as("%s", command).containsOnly(outcomes.values().iterator().next());
        return outcomes.values().iterator().next();
    }

    /** The query at every replica of {@code read}'s owner; asserts they agree; the reply in hex. */
    private String queried(VoleryCommand read) {
        int owner = oracle.partitionOf(read.path());
        List<String> replies = new ArrayList<>();
        for (int r = 0; r < VoleryPartitionTest.REPLICAS; r++) {
            ByteBuffer bytes = ByteBuffer.wrap(read.encode());
            replies.add(hex(ssmr.replica(owner, r).query(bytes)));
            assertThat(bytes.position()).as("the query bytes are not consumed").isZero();
        }
        assertThat(replies).as("%s at every replica of partition %d", read, owner).containsOnly(replies.get(0));
        return replies.get(0);
    }

    private static String hex(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return HexFormat.of().formatHex(out);
    }

    /** A top-level path owned by {@code partition}. */
    private String ownedBy(int partition, String prefix) {
        for (int i = 0; ; i++) {
            String path = "/" + prefix + i;
            if (oracle.partitionOf(path) == partition) {
                return path;
            }
        }
    }

    /** Builds a small tree whose nodes fall in every partition; returns the paths, the root included. */
    private List<String> tree() {
        List<String> paths = new ArrayList<>(List.of("/"));
        for (int p = 0; p < P; p++) {
            String top = ownedBy(p, "n");
            ordered(new Create(top, new byte[] {(byte) p}, CreateMode.PERSISTENT, 100 + p));
            ordered(new SetData(top, new byte[] {1, 2, 3}, -1, 200 + p));
            ordered(new Create(top + "/c", new byte[0], CreateMode.PERSISTENT, 300 + p));
            ordered(new Create(top + "/s-", new byte[0], CreateMode.PERSISTENT_SEQUENTIAL, 400 + p));
            paths.addAll(List.of(top, top + "/c", top + "/s-0000000001"));
        }
        paths.addAll(List.of("/missing", "/missing/child", "bad-path", "/trailing/"));
        return paths;
    }

    private List<VoleryCommand> reads(List<String> paths) {
        List<VoleryCommand> reads = new ArrayList<>();
        for (String path : paths) {
            reads.add(new GetData(path));
            reads.add(new Exists(path));
            reads.add(new GetChildren(path));
        }
        return reads;
    }

    @Test
    @DisplayName("getData, exists and getChildren as queries answer the ordered read's bytes at every replica of the owner, errors included")
    void eachReadAnswersAsTheOrderedRead() {
        List<VoleryCommand> reads = reads(tree());
        for (VoleryCommand read : reads) {
            assertThat(read.isQuery()).isTrue();
            assertThat(queried(read)).as("%s", read).isEqualTo(ordered(read));
        }
        ZkReply data = ZkReply.decode(HexFormat.of().parseHex(queried(new GetData(ownedBy(1, "n")))));
        assertThat(data.data()).containsExactly(1, 2, 3);
        assertThat(data.stat().version()).as("the owner's current version, not the create's copy").isEqualTo(1);
        assertThat(ZkReply.decode(HexFormat.of().parseHex(queried(new Exists("/missing")))).code()).isEqualTo(ZkCode.NONODE);
        assertThat(ZkReply.decode(HexFormat.of().parseHex(queried(new GetChildren("bad-path")))).code())
                .isEqualTo(ZkCode.BADARGUMENTS);
        assertThat(ZkReply.decode(HexFormat.of().parseHex(queried(new GetChildren(ownedBy(2, "n"))))).children())
                .containsExactly("c", "s-0000000001");
    }

    @Test
    @DisplayName("queries change nothing: snapshots, digests, watches and the next write's zxid are those without them")
    void queriesChangeNothing() {
        List<VoleryCommand> reads = reads(tree());
        List<List<byte[]>> before = snapshots();
        List<List<Long>> digests = ssmr.digests();
        for (int round = 0; round < 3; round++) {
            for (VoleryCommand read : reads) {
                queried(read);
            }
        }
        assertThat(ssmr.digests()).isEqualTo(digests);
        List<List<byte[]>> after = snapshots();
        for (int p = 0; p < P; p++) {
            for (int r = 0; r < VoleryPartitionTest.REPLICAS; r++) {
                assertThat(after.get(p).get(r)).as("partition %d replica %d", p, r).isEqualTo(before.get(p).get(r));
                assertThat(ssmr.replica(p, r).watchCount()).as("no watch set by a query").isZero();
            }
        }
        String top = ownedBy(0, "n");
        ZkReply set = ZkReply.decode(HexFormat.of().parseHex(ordered(new SetData(top, new byte[] {9}, -1, 500))));
        // 3 creates per partition (9 global commands), then one setData at partition 0 since the last create
        assertThat(set.stat().mzxid()).as("no zxid consumed by the queries").isEqualTo(9L << 32 | 1);
    }

    @Test
    @DisplayName("a query sets no watch: a later write fires nothing, while the ordered read with a watch does")
    void aQuerySetsNoWatch() {
        String top = ownedBy(1, "w");
        ordered(new Create(top, new byte[0], CreateMode.PERSISTENT, 1));
        Watcher watcher = new Watcher(7, 42);
        queried(new GetData(top));
        ordered(new SetData(top, new byte[] {1}, -1, 2));
        assertThat(ssmr.replica(1, 0).watchCount()).isZero();
        ZkReply noEvents = ZkReply.decode(HexFormat.of().parseHex(ordered(new WatchPoll(1, 7, 0))));
        assertThat(noEvents.events()).isEmpty();
        ordered(new GetData(top, watcher));
        assertThat(ssmr.replica(1, 0).watchCount()).isEqualTo(1);
        ordered(new SetData(top, new byte[] {2}, -1, 3));
        assertThat(ZkReply.decode(HexFormat.of().parseHex(ordered(new WatchPoll(1, 7, 0)))).events()).hasSize(1);
    }

    @Test
    @DisplayName("writes, reads that set a watch and a front end's commands are refused (UnsupportedOperationException: ordered), changing nothing")
    void everythingElseIsRefused() {
        tree();
        String top = ownedBy(0, "n");
        Watcher watcher = new Watcher(1, 2);
        List<VoleryCommand> refused = List.of(
                new Create(top + "/x", new byte[0], CreateMode.PERSISTENT, 1),
                new Delete(top + "/c", -1),
                new SetData(top, new byte[] {5}, -1, 1),
                new GetData(top, watcher), new Exists(top, watcher), new GetChildren(top, watcher),
                new AddWatch(top, false, watcher), new AddWatch(top, true, watcher),
                new RemoveWatches(top, 3, watcher),
                new WatchPoll(0, 1, 0), new WatchDrop(0, 1, 2));
        List<List<Long>> digests = ssmr.digests();
        for (VoleryCommand c : refused) {
            assertThat(c.isQuery()).as("%s", c).isFalse();
            assertThatThrownBy(() -> ssmr.replica(0, 0).query(ByteBuffer.wrap(c.encode()))).as("%s", c)
                    .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("ordered");
        }
        assertThat(ssmr.digests()).isEqualTo(digests);
    }

    @Test
    @DisplayName("a query of a path another partition owns, or at a partition that has executed nothing yet, is refused: ordered")
    void notTheOwnerOrNotYetPlacedIsRefused() {
        tree();
        String atOne = ownedBy(1, "n");
        assertThatThrownBy(() -> ssmr.replica(0, 0).query(ByteBuffer.wrap(new GetData(atOne).encode())))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessage("partition 0 does not own " + atOne + " (partition 1 does): the read is ordered");
        VoleryPartition fresh = new VoleryPartition();
        assertThatThrownBy(() -> fresh.query(ByteBuffer.wrap(new GetData("/").encode())))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("has executed no command yet");
    }

    @Test
    @DisplayName("garbage query bytes answer MARSHALLINGERROR, as the ordered command would, and change nothing")
    void garbageQueriesAnswerMarshallingError() {
        tree();
        List<List<Long>> digests = ssmr.digests();
        String malformed = HexFormat.of().formatHex(ZkReply.malformed().encode());
        Random random = new Random(4);
        List<byte[]> garbage = new ArrayList<>(List.of(new byte[0], new byte[] {VoleryCommand.OP_GET_DATA},
                new byte[] {VoleryCommand.OP_GET_DATA, 0, 0, 0, 5, '/'}, new byte[] {77, 1, 2, 3}));
        for (int i = 0; i < 200; i++) {
            byte[] bytes = new byte[random.nextInt(24)];
            random.nextBytes(bytes);
            garbage.add(bytes);
        }
        int refused = 0;
        for (byte[] bytes : garbage) {
            if (VoleryCommand.decode(bytes).ok()) {
                continue; // random bytes that happen to decode are a command like any other
            }
            for (int p = 0; p < P; p++) {
                assertThat(hex(ssmr.replica(p, 0).query(ByteBuffer.wrap(bytes)))).isEqualTo(malformed);
            }
            assertThat(ssmr.run(bytes, GroupSet.DEFAULT).values()).as("the ordered command's reply").containsOnly(malformed);
            refused++;
        }
        assertThat(refused).isGreaterThan(100);
        assertThat(ssmr.digests()).isEqualTo(digests);
        assertThat(ZkReply.decode(HexFormat.of().parseHex(malformed)).code()).isEqualTo(ZkCode.MARSHALLINGERROR);
    }

    private List<List<byte[]>> snapshots() {
        List<List<byte[]>> all = new ArrayList<>();
        for (int p = 0; p < P; p++) {
            List<byte[]> partition = new ArrayList<>();
            for (int r = 0; r < VoleryPartitionTest.REPLICAS; r++) {
                partition.add(ssmr.replica(p, r).snapshotBytes());
            }
            all.add(partition);
        }
        return all;
    }
}
