package dev.parallax.examples.volery;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.parallax.examples.volery.CreateMode.PERSISTENT;
import static dev.parallax.examples.volery.CreateMode.PERSISTENT_SEQUENTIAL;
import static org.assertj.core.api.Assertions.assertThat;

/** ZooKeeper's data model: operations, Stat bookkeeping and every error code path. */
class ZnodeTreeTest {
    private static final byte[] DATA = {1, 2, 3};

    private final ZnodeTree tree = new ZnodeTree();

    @Test
    void theRootExistsWithAZeroStatAndNoChildren() {
        ZkReply root = tree.getChildren("/");
        assertThat(root.code()).isEqualTo(ZkCode.OK);
        assertThat(root.children()).isEmpty();
        assertThat(root.stat()).isEqualTo(new Stat(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        assertThat(tree.getData("/").data()).isEmpty();
        assertThat(tree.size()).isEqualTo(1);
    }

    @Test
    void createSetsTheStatFromItsInputsAndUpdatesTheParent() {
        assertThat(tree.create("/a", DATA, PERSISTENT, 5, 1_000))
                .isEqualTo(ZkReply.created("/a", new Stat(5, 5, 1_000, 1_000, 0, 0, 0, 0, 3, 0, 5)).withZxid(5));
        ZkReply a = tree.getData("/a");
        assertThat(a.data()).containsExactly(DATA);
        assertThat(a.stat()).isEqualTo(new Stat(5, 5, 1_000, 1_000, 0, 0, 0, 0, 3, 0, 5));
        Stat root = tree.exists("/").stat();
        assertThat(root.cversion()).isEqualTo(1);
        assertThat(root.pzxid()).isEqualTo(5);
        assertThat(root.numChildren()).isEqualTo(1);
        assertThat(root.version()).isZero();
        assertThat(root.mzxid()).isZero();
    }

    @Test
    void createErrors() {
        tree.create("/a", DATA, PERSISTENT, 1, 1);
        assertThat(tree.create("/a", DATA, PERSISTENT, 2, 2).code()).isEqualTo(ZkCode.NODEEXISTS);
        assertThat(tree.create("/", DATA, PERSISTENT, 2, 2).code()).isEqualTo(ZkCode.NODEEXISTS);
        assertThat(tree.create("/x/y", DATA, PERSISTENT, 2, 2).code()).isEqualTo(ZkCode.NONODE);
        assertThat(tree.create("a", DATA, PERSISTENT, 2, 2).code()).isEqualTo(ZkCode.BADARGUMENTS);
        assertThat(tree.create("/a/", DATA, PERSISTENT, 2, 2).code()).isEqualTo(ZkCode.BADARGUMENTS);
        assertThat(tree.create(null, DATA, PERSISTENT, 2, 2).code()).isEqualTo(ZkCode.BADARGUMENTS);
        assertThat(tree.create("/b", null, PERSISTENT, 2, 2).code()).isEqualTo(ZkCode.BADARGUMENTS);
        for (CreateMode mode : CreateMode.values()) {
            if (!mode.isSupported()) {
                assertThat(tree.create("/e", DATA, mode, 2, 2).code()).as("%s", mode).isEqualTo(ZkCode.UNIMPLEMENTED);
            }
        }
        assertThat(tree.create("/e", DATA, null, 2, 2).code()).isEqualTo(ZkCode.UNIMPLEMENTED);
        assertThat(tree.size()).isEqualTo(2);
        assertThat(tree.exists("/").stat().cversion()).as("failed creates change nothing").isEqualTo(1);
    }

    @Test
    void sequentialNamesUseTheParentsCversionBeforeTheCreate() {
        tree.create("/q", DATA, PERSISTENT, 1, 1);
        assertThat(tree.create("/q/job-", DATA, PERSISTENT_SEQUENTIAL, 2, 2).path()).isEqualTo("/q/job-0000000000");
        assertThat(tree.create("/q/job-", DATA, PERSISTENT_SEQUENTIAL, 3, 3).path()).isEqualTo("/q/job-0000000001");
        tree.create("/q/plain", DATA, PERSISTENT, 4, 4);
        assertThat(tree.delete("/q/job-0000000001", -1, 5).isOk()).isTrue();
        // delete leaves the cversion alone (ZooKeeper's DataTree), so names never repeat
        assertThat(tree.create("/q/", DATA, PERSISTENT_SEQUENTIAL, 6, 6).path()).isEqualTo("/q/0000000003");
        assertThat(tree.create("/", DATA, PERSISTENT_SEQUENTIAL, 7, 7).path()).isEqualTo("/0000000001");
        assertThat(tree.getChildren("/q").children())
                .containsExactly("0000000003", "job-0000000000", "plain");
        Stat q = tree.exists("/q").stat();
        assertThat(q.cversion()).isEqualTo(4);
        assertThat(q.pzxid()).isEqualTo(6);
        assertThat(q.numChildren()).isEqualTo(3);
    }

    @Test
    void aSequentialNameThatExistsIsNodeExists() {
        tree.create("/n0000000001", DATA, PERSISTENT, 1, 1);
        assertThat(tree.create("/n", DATA, PERSISTENT_SEQUENTIAL, 2, 2).code()).isEqualTo(ZkCode.NODEEXISTS);
        assertThat(tree.create("/n/", DATA, PERSISTENT_SEQUENTIAL, 2, 2).code()).isEqualTo(ZkCode.NONODE);
        assertThat(tree.create("/n//", DATA, PERSISTENT_SEQUENTIAL, 2, 2).code()).isEqualTo(ZkCode.BADARGUMENTS);
    }

    @Test
    void setDataChecksTheVersionAndBumpsIt() {
        tree.create("/a", DATA, PERSISTENT, 1, 10);
        ZkReply first = tree.setData("/a", new byte[] {9}, 0, 2, 20);
        assertThat(first.stat()).isEqualTo(new Stat(1, 2, 10, 20, 1, 0, 0, 0, 1, 0, 1));
        assertThat(tree.setData("/a", DATA, 0, 3, 30).code()).isEqualTo(ZkCode.BADVERSION);
        assertThat(tree.setData("/a", DATA, 7, 3, 30).code()).isEqualTo(ZkCode.BADVERSION);
        assertThat(tree.getData("/a").data()).containsExactly(9);
        assertThat(tree.setData("/a", new byte[0], ZnodeTree.ANY_VERSION, 4, 40).stat().version()).isEqualTo(2);
        assertThat(tree.setData("/a", new byte[0], 2, 5, 50).stat().version()).isEqualTo(3);
        assertThat(tree.setData("/missing", DATA, -1, 6, 60).code()).isEqualTo(ZkCode.NONODE);
        assertThat(tree.setData("/a/../a", DATA, -1, 6, 60).code()).isEqualTo(ZkCode.BADARGUMENTS);
        assertThat(tree.setData("/a", null, -1, 6, 60).code()).isEqualTo(ZkCode.BADARGUMENTS);
        assertThat(tree.setData("/", DATA, 0, 7, 70).stat().version()).as("the root's data can be set").isEqualTo(1);
        assertThat(tree.exists("/").stat().cversion()).as("setData leaves the parent alone").isEqualTo(1);
    }

    @Test
    void deleteChecksVersionBeforeEmptiness() {
        tree.create("/a", DATA, PERSISTENT, 1, 1);
        tree.create("/a/b", DATA, PERSISTENT, 2, 2);
        tree.setData("/a/b", DATA, -1, 3, 3);
        assertThat(tree.delete("/a", 5, 4).code()).isEqualTo(ZkCode.BADVERSION);
        assertThat(tree.delete("/a", 0, 4).code()).isEqualTo(ZkCode.NOTEMPTY);
        assertThat(tree.delete("/a", -1, 4).code()).isEqualTo(ZkCode.NOTEMPTY);
        assertThat(tree.delete("/a/b", 0, 4).code()).isEqualTo(ZkCode.BADVERSION);
        assertThat(tree.delete("/a/b", 1, 9).code()).isEqualTo(ZkCode.OK);
        Stat a = tree.exists("/a").stat();
        assertThat(a.pzxid()).isEqualTo(9);
        assertThat(a.cversion()).isEqualTo(1);
        assertThat(a.numChildren()).isZero();
        assertThat(tree.exists("/a/b").code()).isEqualTo(ZkCode.NONODE);
        assertThat(tree.delete("/a/b", -1, 10).code()).isEqualTo(ZkCode.NONODE);
        assertThat(tree.delete("/", -1, 10).code()).isEqualTo(ZkCode.BADARGUMENTS);
        assertThat(tree.delete("/a/", -1, 10).code()).isEqualTo(ZkCode.BADARGUMENTS);
        assertThat(tree.delete(null, -1, 10).code()).isEqualTo(ZkCode.BADARGUMENTS);
        assertThat(tree.delete("/a", 0, 11).code()).isEqualTo(ZkCode.OK);
        assertThat(tree.size()).isEqualTo(1);
    }

    @Test
    void deleteNeverMovesPzxidBackwards() {
        tree.create("/a", DATA, PERSISTENT, 10, 1);
        tree.create("/b", DATA, PERSISTENT, 20, 1);
        tree.delete("/a", -1, 15);
        assertThat(tree.exists("/").stat().pzxid()).isEqualTo(20);
    }

    @Test
    void readsOfMissingOrInvalidPaths() {
        for (String read : new String[] {"data", "exists", "children"}) {
            assertThat(read(read, "/nope").code()).isEqualTo(ZkCode.NONODE);
            assertThat(read(read, "/nope/").code()).isEqualTo(ZkCode.BADARGUMENTS);
            assertThat(read(read, null).code()).isEqualTo(ZkCode.BADARGUMENTS);
            assertThat(read(read, "").code()).isEqualTo(ZkCode.BADARGUMENTS);
            assertThat(read(read, "/nope").stat()).isNull();
        }
    }

    @Test
    void getChildrenIsSortedAndListsOnlyDirectChildren() {
        for (String name : new String[] {"zeta", "alpha", "Beta", "m", "alpha2"}) {
            tree.create("/" + name, DATA, PERSISTENT, 1, 1);
        }
        tree.create("/alpha/deep", DATA, PERSISTENT, 2, 2);
        assertThat(tree.getChildren("/").children()).containsExactly("Beta", "alpha", "alpha2", "m", "zeta");
        assertThat(tree.getChildren("/alpha").children()).containsExactly("deep");
        assertThat(tree.getChildren("/alpha").stat().numChildren()).isEqualTo(1);
    }

    @Test
    void dataIsCopiedInAndOut() {
        byte[] data = {1, 2};
        tree.create("/a", data, PERSISTENT, 1, 1);
        data[0] = 7;
        tree.getData("/a").data()[1] = 7;
        assertThat(tree.getData("/a").data()).containsExactly(1, 2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a", "a/b", "/a/", "//", "/a//b", "/.", "/..", "/a/.", "/a/../b", "/a\u0000b",
            "/a\u0001", "/a\u007f", "/a\u009f", "/a\ud800", "/a\uf8ff", "/a\ufff0", "/a\uffff"})
    void invalidPaths(String path) {
        assertThat(ZkPaths.invalidReason(path)).isNotNull();
        assertThat(tree.create(path, DATA, PERSISTENT, 1, 1).code()).isEqualTo(ZkCode.BADARGUMENTS);
        assertThat(tree.exists(path).code()).isEqualTo(ZkCode.BADARGUMENTS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "/a", "/a/b", "/...", "/.a", "/a.", "/a..", "/..a", "/a/.b/..c", "/ü", "/a b", "/a\u00a0"})
    void validPaths(String path) {
        assertThat(ZkPaths.invalidReason(path)).isNull();
    }

    @Test
    void pathHelpers() {
        assertThat(ZkPaths.parent("/a")).isEqualTo("/");
        assertThat(ZkPaths.parent("/a/b")).isEqualTo("/a");
        assertThat(ZkPaths.name("/a/b")).isEqualTo("b");
        assertThat(ZkPaths.invalidReason(null)).isEqualTo("path cannot be null");
    }

    @Test
    void codesAndModesCarryZooKeepersNumbers() {
        assertThat(ZkCode.OK.code()).isZero();
        assertThat(ZkCode.UNIMPLEMENTED.code()).isEqualTo(-6);
        assertThat(ZkCode.BADARGUMENTS.code()).isEqualTo(-8);
        assertThat(ZkCode.NONODE.code()).isEqualTo(-101);
        assertThat(ZkCode.BADVERSION.code()).isEqualTo(-103);
        assertThat(ZkCode.NODEEXISTS.code()).isEqualTo(-110);
        assertThat(ZkCode.NOTEMPTY.code()).isEqualTo(-111);
        for (ZkCode c : ZkCode.values()) {
            assertThat(ZkCode.fromCode(c.code())).isSameAs(c);
        }
        assertThat(ZkCode.fromCode(-1)).isNull();
        assertThat(CreateMode.PERSISTENT.flag()).isZero();
        assertThat(CreateMode.PERSISTENT_SEQUENTIAL.flag()).isEqualTo(2);
        assertThat(CreateMode.EPHEMERAL_SEQUENTIAL.flag()).isEqualTo(3);
        for (CreateMode m : CreateMode.values()) {
            assertThat(CreateMode.fromFlag(m.flag())).isSameAs(m);
        }
        assertThat(CreateMode.fromFlag(7)).isNull();
    }

    private ZkReply read(String kind, String path) {
        return switch (kind) {
            case "data" -> tree.getData(path);
            case "exists" -> tree.exists(path);
            default -> tree.getChildren(path);
        };
    }
}
