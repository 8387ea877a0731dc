package dev.parallax.examples.volery;

import dev.parallax.core.GroupSet;
import dev.parallax.scheduler.ssmr.IdealSsmr;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link VoleryPartition} in chosen situations, through the ideal S-SMR harness {@link IdealSsmr}. */
class VoleryPartitionTest {
    /** Replicas per partition in the ideal runs. */
    static final int REPLICAS = 2;
    private static final int P = 3;
    private final IdealSsmr<VoleryPartition> ssmr = ideal(P);
    private final VoleryOracle oracle = new VoleryOracle(P);

    /** An ideal S-SMR run of Volery over {@code partitions} partitions of {@link #REPLICAS} replicas each. */
    static IdealSsmr<VoleryPartition> ideal(int partitions) {
        return new IdealSsmr<>(partitions, REPLICAS, p -> new VoleryPartition(), VoleryPartition::digest);
    }

    /** Runs {@code command} where the oracle sends it; asserts every involved replica replied alike. */
    private ZkReply run(VoleryCommand command) {
        return run(command, oracle.route(command));
    }

    private ZkReply run(VoleryCommand command, GroupSet involved) {
        Map<String, String> outcomes = ssmr.run(command.encode(), involved);
        assertThat(new HashSet<>(outcomes.values())).as("%s to %s: %s", command, involved, outcomes).hasSize(1);
        String outcome = outcomes.values().iterator().next();
        assertThat(outcome).doesNotStartWith("WrongPartitions").doesNotStartWith("error");
        return ZkReply.decode(HexFormat.of().parseHex(outcome));
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

    private static Create create(String path, long time) {
        return new Create(path, new byte[] {7}, CreateMode.PERSISTENT, time);
    }

    @Test
    void aVersionedDeleteAfterSetDataOnAnotherPartitionsNodeIsDecidedByTheOwnersVersionEverywhere() {
        String x = ownedBy(1, "x");
        assertThat(run(create(x, 100)).path()).isEqualTo(x);
        ZkReply set = run(new SetData(x, new byte[] {1, 2}, 0, 200));
        assertThat(set.stat().version()).isEqualTo(1);
        assertThat(set.stat().mzxid()).isEqualTo(1L << 32 | 1);
        assertThat(set.stat().mtime()).isEqualTo(200);
        // partitions 0 and 2 still hold version 0: they must take the owner's version
        assertThat(run(new Delete(x, 0))).isEqualTo(ZkReply.error(ZkCode.BADVERSION).withZxid(2L << 32));
        ZkReply exists = run(new Exists(x));
        assertThat(exists.stat().version()).isEqualTo(1);
        assertThat(exists.zxid()).as("a read carries the owner's last zxid").isEqualTo(2L << 32);
        assertThat(run(new Delete(x, 1))).isEqualTo(ZkReply.ok().withZxid(3L << 32));
        assertThat(run(new Exists(x))).isEqualTo(ZkReply.error(ZkCode.NONODE).withZxid(3L << 32));
        for (int p = 0; p < P; p++) {
            assertThat(ssmr.replica(p, 0).size()).isEqualTo(1);
        }
        // the node's version is read from its owner only
        IdealSsmr.View view = new IdealSsmr.View(0, P, GroupSet.partition(P));
        ByteBuffer delete = ByteBuffer.wrap(new Delete(x, 3).encode());
        assertThat(ssmr.replica(0, 0).remoteReads(delete, view)).isEqualTo(GroupSet.of(1));
        ByteBuffer anyVersion = ByteBuffer.wrap(new Delete(x, -1).encode());
        assertThat(ssmr.replica(0, 0).remoteReads(anyVersion, view)).isNull();
        assertThat(ssmr.replica(0, 0).localReads(anyVersion, view).remaining()).isZero();
    }

    @Test
    void sequentialCreatesAreNamedAndStampedAlikeEverywhereAndNotEmptyIsGlobal() {
        assertThat(run(create("/q", 10))).isEqualTo(ZkReply.created("/q",
                new Stat(1L << 32, 1L << 32, 10, 10, 0, 0, 0, 0, 1, 0, 1L << 32)).withZxid(1L << 32));
        for (int i = 0; i < 3; i++) {
            ZkReply created = run(new Create("/q/s-", new byte[0], CreateMode.PERSISTENT_SEQUENTIAL, 20 + i));
            long zxid = (2L + i) << 32;
            assertThat(created).isEqualTo(ZkReply.created("/q/s-000000000" + i,
                    new Stat(zxid, zxid, 20 + i, 20 + i, 0, 0, 0, 0, 0, 0, zxid)).withZxid(zxid));
        }
        assertThat(run(new Delete("/q", -1))).isEqualTo(ZkReply.error(ZkCode.NOTEMPTY).withZxid(5L << 32));
        assertThat(run(new Delete("/q", 0))).isEqualTo(ZkReply.error(ZkCode.NOTEMPTY).withZxid(6L << 32));
        assertThat(run(new Delete("/q", 5))).isEqualTo(ZkReply.error(ZkCode.BADVERSION).withZxid(7L << 32));
        ZkReply children = run(new GetChildren("/q"));
        assertThat(children.children()).containsExactly("s-0000000000", "s-0000000001", "s-0000000002");
        assertThat(children.stat().cversion()).isEqualTo(3);
        assertThat(children.stat().pzxid()).isEqualTo(4L << 32);
        // deletes do not reuse sequence numbers; every failed global command consumed a zxid
        assertThat(run(new Delete("/q/s-0000000002", -1))).isEqualTo(ZkReply.ok().withZxid(8L << 32));
        ZkReply next = run(new Create("/q/s-", new byte[0], CreateMode.PERSISTENT_SEQUENTIAL, 30));
        assertThat(next.path()).isEqualTo("/q/s-0000000003");
        assertThat(next.stat().czxid()).isEqualTo(9L << 32);
        assertThat(run(new Create("/q", new byte[0], CreateMode.PERSISTENT)))
                .isEqualTo(ZkReply.error(ZkCode.NODEEXISTS).withZxid(10L << 32));
        assertThat(run(new Create("/none/a", new byte[0], CreateMode.PERSISTENT)))
                .isEqualTo(ZkReply.error(ZkCode.NONODE).withZxid(11L << 32));
        assertThat(run(new Create("/e", new byte[0], CreateMode.CONTAINER)))
                .isEqualTo(ZkReply.error(ZkCode.UNIMPLEMENTED).withZxid(12L << 32));
    }

    @Test
    void localCommandsSentToMorePartitionsAnswerTheOwnersReplyAndChangeOnlyTheOwner() {
        String y = ownedBy(2, "y");
        run(create(y, 1));
        long[] before = new long[P];
        for (int p = 0; p < P; p++) {
            before[p] = ssmr.replica(p, 0).digest();
        }
        ZkReply set = run(new SetData(y, new byte[] {5, 5, 5}, -1, 77), GroupSet.partition(P));
        assertThat(set.stat()).isEqualTo(new Stat(1L << 32, 1L << 32 | 1, 1, 77, 1, 0, 0, 0, 3, 0, 1L << 32));
        assertThat(ssmr.replica(0, 0).digest()).isEqualTo(before[0]);
        assertThat(ssmr.replica(1, 0).digest()).isEqualTo(before[1]);
        assertThat(ssmr.replica(2, 0).digest()).isNotEqualTo(before[2]);
        // non-owners' copies are stale, yet a read sent anywhere with the owner answers the owner's data
        ZkReply read = run(new GetData(y), GroupSet.of(0, 2));
        assertThat(read.data()).containsExactly(5, 5, 5);
        assertThat(run(new GetData(y), GroupSet.of(2))).isEqualTo(read);
        assertThat(run(new SetData(y, new byte[0], 0, 78), GroupSet.of(1, 2)))
                .isEqualTo(ZkReply.error(ZkCode.BADVERSION).withZxid(1L << 32 | 2));
        assertThat(run(new GetChildren("/"), GroupSet.partition(P)).children())
                .containsExactly(y.substring(1));
    }

    @Test
    void commandsSentToTooFewPartitionsFailIdenticallyEverywhereAndChangeNothing() {
        String z = ownedBy(0, "z");
        List<Long> before = ssmr.digests().stream().flatMap(List::stream).toList();
        for (GroupSet tooFew : List.of(GroupSet.of(0), GroupSet.of(0, 1), GroupSet.of(1, 2))) {
            Map<String, String> outcomes = ssmr.run(create(z, 1).encode(), tooFew);
            assertThat(new HashSet<>(outcomes.values())).singleElement().asString().startsWith("WrongPartitions")
                    .contains("2");
            outcomes = ssmr.run(new Delete(z, 0).encode(), tooFew);
            assertThat(new HashSet<>(outcomes.values())).singleElement().asString().startsWith("WrongPartitions");
        }
        Map<String, String> outcomes = ssmr.run(new SetData(z, new byte[0], -1).encode(), GroupSet.of(1, 2));
        assertThat(outcomes).hasSize(4);
        assertThat(new HashSet<>(outcomes.values())).singleElement().asString().startsWith("WrongPartitions")
                .contains("0");
        assertThat(ssmr.digests().stream().flatMap(List::stream).toList()).isEqualTo(before);
        assertThat(run(create(z, 1)).path()).isEqualTo(z);
        assertThat(run(new Exists(z)).stat().czxid()).isEqualTo(1L << 32);
    }

    @Test
    void malformedCommandBytesGiveMarshallingErrorOnEveryReplicaAndChangeNothing() {
        String malformed = HexFormat.of().formatHex(ZkReply.malformed().encode());
        List<Long> before = ssmr.digests().stream().flatMap(List::stream).toList();
        byte[] valid = new Create("/a", new byte[] {1}, CreateMode.PERSISTENT).encode();
        for (byte[] bytes : List.of(new byte[0], new byte[] {42}, Arrays.copyOf(valid, valid.length - 1),
                Arrays.copyOf(valid, valid.length + 3), new byte[] {1, 0, 0, 0, 2, '/', 'a', 0, 0, 0, 99})) {
            for (GroupSet involved : List.of(GroupSet.DEFAULT, GroupSet.of(1), GroupSet.partition(P))) {
                IdealSsmr.View view = new IdealSsmr.View(involved.first(), P, involved);
                assertThat(ssmr.replica(involved.first(), 0).localReads(ByteBuffer.wrap(bytes), view).remaining())
                        .isZero();
                assertThat(ssmr.replica(involved.first(), 0).remoteReads(ByteBuffer.wrap(bytes), view)).isNull();
                assertThat(ssmr.run(bytes, involved).values()).containsOnly(malformed);
            }
        }
        assertThat(ssmr.digests().stream().flatMap(List::stream).toList()).isEqualTo(before);
    }

    @Test
    void eachPartitionsSnapshotRoundTripsIsSelfDelimitingAndGoesOnAlike() throws IOException {
        String a = ownedBy(1, "a");
        run(create(a, 1));
        run(new SetData(a, new byte[] {9}, 0, 2));
        run(new Create(a + "/s-", new byte[] {3}, CreateMode.PERSISTENT_SEQUENTIAL, 3));
        for (int p = 0; p < P; p++) {
            VoleryPartition original = ssmr.replica(p, 0);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            original.snapshot(Channels.newChannel(out));
            byte[] snapshot = out.toByteArray();
            assertThat(snapshot).isEqualTo(original.snapshotBytes());
            assertThat(ByteBuffer.wrap(snapshot).getInt()).isEqualTo(VoleryPartition.SNAPSHOT_MAGIC);
            byte[] followed = Arrays.copyOf(snapshot, snapshot.length + 3);
            InputStream in = new ByteArrayInputStream(followed);
            VoleryPartition restored = new VoleryPartition();
            restored.restore(Channels.newChannel(in));
            assertThat(in.available()).as("restore reads exactly the snapshot").isEqualTo(3);
            assertThat(restored.snapshotBytes()).isEqualTo(snapshot);
            assertThat(restored.digest()).isEqualTo(original.digest());
            assertThat(restored.size()).isEqualTo(original.size()).isEqualTo(3);
        }
        assertThat(ssmr.replica(0, 0).digest()).as("partitions differ: only the owner saw setData")
                .isNotEqualTo(ssmr.replica(1, 0).digest());
        ssmr.restoreFromSnapshots(1);
        ZkReply set = run(new SetData(a, new byte[] {4}, 1, 5));
        assertThat(set.stat().mzxid()).isEqualTo(2L << 32 | 1);
        assertThat(run(new Create(a + "/s-", new byte[0], CreateMode.PERSISTENT_SEQUENTIAL, 6)).path())
                .isEqualTo(a + "/s-0000000001");
        for (List<Long> partition : ssmr.digests()) {
            assertThat(partition).containsOnly(partition.get(0));
        }
    }

    @Test
    void aWatchLivesAtItsZnodesOwnerFiresThereOnACreateEveryPartitionExecutesAndIsInTheSnapshot() throws IOException {
        String parent = ownedBy(1, "w");
        Watcher w = new Watcher(4, 77);
        run(create(parent, 1));
        assertThat(run(new GetChildren(parent, w)).isOk()).isTrue();
        String child = parent + "/c";
        run(new Exists(child, w)); // owned by whichever partition: set there
        int childOwner = oracle.partitionOf(child);
        for (int p = 0; p < P; p++) {
            int expected = (p == 1 ? 1 : 0) + (p == childOwner ? 1 : 0);
            assertThat(ssmr.replica(p, 0).watchCount()).as("partition %d", p).isEqualTo(expected);
        }
        // the watches are replicated state: in the snapshot, restored alike
        ssmr.restoreFromSnapshots(1);
        assertThat(ssmr.replica(1, 1).watchCount()).isEqualTo(ssmr.replica(1, 0).watchCount());

        run(create(child, 2)); // a global command: each partition fires the watches it holds
        List<String> fired = new java.util.ArrayList<>();
        for (int p = 0; p < P; p++) {
            ZkReply poll = run(new WatchPoll(p, 4, 0));
            poll.events().forEach(e -> fired.add(e.type() + " " + e.path()));
            assertThat(ssmr.replica(p, 0).watchCount()).isZero();
        }
        assertThat(fired).containsExactlyInAnyOrder(WatchEvent.NODE_CHILDREN_CHANGED + " " + parent,
                WatchEvent.NODE_CREATED + " " + child);
        for (List<Long> partition : ssmr.digests()) {
            assertThat(partition).as("replicas of a partition agree, watches included").containsOnly(partition.get(0));
        }
        assertThat(run(new WatchPoll(P, 4, 0), GroupSet.DEFAULT))
                .as("a partition that does not exist").isEqualTo(ZkReply.error(ZkCode.BADARGUMENTS));
        assertThat(oracle.route(new WatchPoll(2, 4, 0))).isEqualTo(GroupSet.of(2));
    }

    @Test
    void aRecursiveWatchIsHeldByEveryPartitionAndFiredByTheOwnerOfTheChangedPath() {
        Watcher w = new Watcher(5, 55);
        String top = ownedBy(0, "t");
        run(create(top, 1));
        assertThat(run(new AddWatch(top, true, w))).isEqualTo(ZkReply.ok().withZxid(1L << 32));
        for (int p = 0; p < P; p++) {
            assertThat(ssmr.replica(p, 0).watchCount()).as("partition %d", p).isEqualTo(1);
        }
        List<String> children = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) {
            String child = top + "/c" + i;
            children.add(child);
            run(create(child, 2));
            run(new SetData(child, new byte[] {1}, -1, 3)); // at the child's owner only
        }
        List<String> fired = new java.util.ArrayList<>();
        for (int p = 0; p < P; p++) {
            for (WatchEvent e : run(new WatchPoll(p, 5, 0)).events()) {
                assertThat(oracle.partitionOf(e.path())).as("fired by the owner of %s", e.path()).isEqualTo(p);
                fired.add(e.type() + " " + e.path());
            }
        }
        List<String> expected = new java.util.ArrayList<>();
        for (String child : children) {
            expected.add(WatchEvent.NODE_CREATED + " " + child);
            expected.add(WatchEvent.NODE_DATA_CHANGED + " " + child);
        }
        assertThat(fired).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(run(new RemoveWatches(top, ZnodeWatches.REMOVE_ANY, w)).isOk()).isTrue();
        for (int p = 0; p < P; p++) {
            assertThat(ssmr.replica(p, 0).watchCount()).isZero();
        }
    }

    @Test
    void aVersion1SnapshotWithoutWatchesIsStillRestored() throws IOException {
        VoleryPartition original = new VoleryPartition();
        byte[] v2 = original.snapshotBytes();
        // version 1 is version 2 without the trailing watch section (int length + bytes)
        byte[] empty = new ZnodeWatches().snapshot();
        byte[] v1 = Arrays.copyOf(v2, v2.length - 4 - empty.length);
        v1[4] = VoleryPartition.SNAPSHOT_VERSION_1;
        VoleryPartition restored = new VoleryPartition();
        restore(restored, v1);
        assertThat(restored.snapshotBytes()).isEqualTo(v2);
    }

    @Test
    void aCorruptSnapshotIsRefusedWithTheReasonAndLeavesTheStateAlone() {
        String a = ownedBy(2, "a");
        run(create(a, 1));
        VoleryPartition partition = ssmr.replica(2, 0);
        byte[] snapshot = partition.snapshotBytes();
        VoleryPartition target = ssmr.replica(0, 0);
        long digest = target.digest();
        for (int length : new int[] {0, 4, 24, 25, snapshot.length - 1}) {
            assertThatThrownBy(() -> restore(target, Arrays.copyOf(snapshot, length)))
                    .isInstanceOf(EOFException.class).hasMessageContaining("truncated");
        }
        byte[] magic = snapshot.clone();
        magic[0] = 0;
        assertThatThrownBy(() -> restore(target, magic)).isInstanceOf(IOException.class).hasMessageContaining("magic");
        byte[] version = snapshot.clone();
        version[4] = 9;
        assertThatThrownBy(() -> restore(target, version)).isInstanceOf(IOException.class)
                .hasMessageContaining("version 9");
        byte[] counters = snapshot.clone();
        ByteBuffer.wrap(counters).putLong(5, -1);
        assertThatThrownBy(() -> restore(target, counters)).isInstanceOf(IOException.class)
                .hasMessageContaining("counters");
        byte[] tree = snapshot.clone();
        tree[25] = 0; // the tree's magic
        assertThatThrownBy(() -> restore(target, tree)).isInstanceOf(IOException.class)
                .hasMessageContaining("malformed znode snapshot");
        assertThat(target.digest()).isEqualTo(digest);
    }

    private static void restore(VoleryPartition target, byte[] bytes) throws IOException {
        target.restore(Channels.newChannel(new ByteArrayInputStream(bytes)));
    }

    @Test
    void onePartitionNeedsNoExchange() {
        IdealSsmr<VoleryPartition> single = ideal(1);
        IdealSsmr.View view = new IdealSsmr.View(0, 1, GroupSet.DEFAULT);
        byte[] delete = new Delete("/a", 0).encode();
        assertThat(single.replica(0, 0).localReads(ByteBuffer.wrap(delete), view).remaining()).isZero();
        assertThat(single.replica(0, 0).remoteReads(ByteBuffer.wrap(delete), view)).isNull();
        single.run(create("/a", 1).encode(), GroupSet.DEFAULT);
        single.run(new SetData("/a", new byte[0], 0).encode(), GroupSet.DEFAULT);
        assertThat(single.run(delete, GroupSet.DEFAULT).values())
                .containsOnly(HexFormat.of().formatHex(ZkReply.error(ZkCode.BADVERSION).withZxid(2L << 32).encode()));
        assertThat(single.run(new Delete("/a", 1).encode(), GroupSet.DEFAULT).values())
                .containsOnly(HexFormat.of().formatHex(ZkReply.ok().withZxid(3L << 32).encode()));
    }
}
