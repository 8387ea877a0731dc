package dev.parallax.examples.volery;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static dev.parallax.examples.volery.CreateMode.PERSISTENT;
import static dev.parallax.examples.volery.CreateMode.PERSISTENT_SEQUENTIAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The versioned snapshot of a znode tree, its checks, and the digest. */
class ZnodeSnapshotTest {

    private static ZnodeTree sample() {
        ZnodeTree tree = new ZnodeTree();
        tree.create("/a", "A".getBytes(), PERSISTENT, 1, 100);
        tree.create("/a/b", new byte[0], PERSISTENT, 2, 200);
        tree.create("/a-b", new byte[300], PERSISTENT, 3, 300);
        tree.create("/a/q-", "q".getBytes(), PERSISTENT_SEQUENTIAL, 4, 400);
        tree.setData("/a", "AA".getBytes(), 0, 5, 500);
        tree.create("/ü", "u".getBytes(), PERSISTENT, 6, 600);
        tree.delete("/a/b", -1, 7);
        return tree;
    }

    @Test
    void aRestoredTreeAnswersEveryReadAlikeAndHasTheSameDigestAndBytes() {
        ZnodeTree tree = sample();
        byte[] snapshot = tree.snapshot();
        ZnodeTree restored = ZnodeTree.restore(snapshot);
        assertThat(restored.snapshot()).isEqualTo(snapshot);
        assertThat(restored.digest()).isEqualTo(tree.digest());
        assertThat(restored.size()).isEqualTo(tree.size()).isEqualTo(5);
        for (String path : new String[] {"/", "/a", "/a/b", "/a-b", "/a/q-0000000001", "/ü", "/none"}) {
            assertThat(restored.getData(path)).isEqualTo(tree.getData(path));
            assertThat(restored.getChildren(path)).isEqualTo(tree.getChildren(path));
        }
        // and it goes on alike: sequence numbers continue from the restored cversion
        assertThat(restored.create("/a/q-", new byte[0], PERSISTENT_SEQUENTIAL, 8, 800))
                .isEqualTo(tree.create("/a/q-", new byte[0], PERSISTENT_SEQUENTIAL, 8, 800))
                .isEqualTo(ZkReply.created("/a/q-0000000002", new Stat(8, 8, 800, 800, 0, 0, 0, 0, 0, 0, 8)).withZxid(8));
        assertThat(restored.digest()).isEqualTo(tree.digest());
    }

    @Test
    void theDigestSeesEveryStatFieldAndReadsDoNotChangeIt() {
        ZnodeTree a = sample();
        ZnodeTree b = sample();
        assertThat(a.digest()).isEqualTo(b.digest()).isNotZero().isLessThan(1L << 52);
        a.getData("/a");
        a.getChildren("/");
        a.exists("/x");
        assertThat(a.digest()).isEqualTo(b.digest());
        long before = a.digest();
        a.setData("/a", "AA".getBytes(), -1, 9, 500); // same data, new version and mzxid
        assertThat(a.digest()).isNotEqualTo(before);
        b.setData("/a", "AA".getBytes(), -1, 9, 501); // only mtime differs
        assertThat(b.digest()).isNotEqualTo(a.digest());
        assertThat(new ZnodeTree().digest()).isEqualTo(new ZnodeTree().digest());
    }

    @Test
    void theFormatStartsWithMagicAndVersion() {
        ByteBuffer b = ByteBuffer.wrap(new ZnodeTree().snapshot());
        assertThat(b.getInt()).isEqualTo(ZnodeSnapshotFormat.MAGIC);
        assertThat(b.get()).isEqualTo(ZnodeSnapshotFormat.VERSION);
        assertThat(b.getInt()).isEqualTo(1);
        assertThat(b.getInt()).isEqualTo(1);
        assertThat(b.get()).isEqualTo((byte) '/');
    }

    @Test
    void everyTruncationIsAClearError() {
        byte[] snapshot = sample().snapshot();
        for (int length = 0; length < snapshot.length; length++) {
            byte[] cut = Arrays.copyOf(snapshot, length);
            assertThatThrownBy(() -> ZnodeTree.restore(cut)).as("length %d", length)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("snapshot");
        }
    }

    @Test
    void malformedSnapshotsAreRejectedWithTheReason() {
        byte[] good = sample().snapshot();
        assertThatThrownBy(() -> ZnodeTree.restore(null)).isInstanceOf(IllegalArgumentException.class);
        byte[] magic = good.clone();
        magic[0] ^= 1;
        assertThatThrownBy(() -> ZnodeTree.restore(magic)).hasMessageContaining("magic");
        byte[] version = good.clone();
        version[4] = 3;
        assertThatThrownBy(() -> ZnodeTree.restore(version)).hasMessageContaining("version 3");
        byte[] trailing = Arrays.copyOf(good, good.length + 1);
        assertThatThrownBy(() -> ZnodeTree.restore(trailing)).hasMessageContaining("trailing");
        byte[] count = good.clone();
        ByteBuffer.wrap(count).putInt(5, Integer.MAX_VALUE);
        assertThatThrownBy(() -> ZnodeTree.restore(count)).hasMessageContaining("node count");
        byte[] noRoot = good.clone();
        noRoot[13] = 'x'; // the root's path "/" becomes "x"
        assertThatThrownBy(() -> ZnodeTree.restore(noRoot)).hasMessageContaining("invalid path");
        byte[] badUtf8 = good.clone();
        badUtf8[13] = (byte) 0xff;
        assertThatThrownBy(() -> ZnodeTree.restore(badUtf8)).hasMessageContaining("UTF-8");
    }

    @Test
    void nodesOutOfOrderOrWithoutParentAreRejected() {
        ZnodeTree one = new ZnodeTree();
        one.create("/a", new byte[0], PERSISTENT, 1, 1);
        byte[] snapshot = one.snapshot();
        // rename "/a" to "/" (a duplicate root): out of order
        byte[] dup = withSecondPath(snapshot, "/");
        assertThatThrownBy(() -> ZnodeTree.restore(dup)).hasMessageContaining("out of order");
        byte[] orphan = withSecondPath(snapshot, "/x/y");
        assertThatThrownBy(() -> ZnodeTree.restore(orphan)).hasMessageContaining("no parent");
    }

    @Test
    void anEphemeralOwnerIsRejected() {
        byte[] snapshot = new ZnodeTree().snapshot();
        // the root's ephemeralOwner: after magic, version, count, path (4 + 1), 5 longs and 3 ints
        ByteBuffer.wrap(snapshot).putLong(4 + 1 + 4 + 5 + 5 * 8 + 3 * 4, 42);
        assertThatThrownBy(() -> ZnodeTree.restore(snapshot)).hasMessageContaining("ephemeral owner 42");
    }

    /** The snapshot of a two-node tree with its second node's path replaced. */
    private static byte[] withSecondPath(byte[] snapshot, String path) {
        ByteBuffer in = ByteBuffer.wrap(snapshot);
        int rootEnd = 4 + 1 + 4 + 4 + 1 + 5 * 8 + 3 * 4 + 8 + 4;
        in.position(rootEnd);
        int oldLength = in.getInt();
        byte[] p = path.getBytes();
        ByteBuffer out = ByteBuffer.allocate(snapshot.length - oldLength + p.length);
        out.put(snapshot, 0, rootEnd).putInt(p.length).put(p);
        out.put(snapshot, rootEnd + 4 + oldLength, snapshot.length - rootEnd - 4 - oldLength);
        return out.array();
    }
}
