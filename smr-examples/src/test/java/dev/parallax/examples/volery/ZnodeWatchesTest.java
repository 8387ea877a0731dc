package dev.parallax.examples.volery;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ZnodeWatches}: ZooKeeper's one-shot watch rules ({@code DataTree}, {@code WatchManager}) as
 * replicated state, driven through {@link VoleryCommand#applyTo(ZnodeTree, ZnodeWatches, long, long)}
 * as a partition drives it.
 */
class ZnodeWatchesTest {
    private static final Watcher A = new Watcher(1, 100);
    private static final Watcher B = new Watcher(1, 200);
    private static final Watcher OTHER_FRONT_END = new Watcher(2, 100);

    private final ZnodeTree tree = new ZnodeTree();
    private final ZnodeWatches watches = new ZnodeWatches();
    private long zxid;

    private ZkReply run(VoleryCommand c) {
        return c.applyTo(tree, watches, c.isWrite() ? ++zxid : zxid, 0);
    }

    private void create(String path) {
        assertThat(run(new Create(path, new byte[0], CreateMode.PERSISTENT)).isOk()).isTrue();
    }

    private List<String> events(int frontEnd) {
        return watches.peek(frontEnd, 0).stream().map(e -> e.session() + " " + e.type() + " " + e.path()).toList();
    }

    @Test
    void getDataAndExistsSetDataWatchesThatSetDataAndDeleteFire() {
        create("/a");
        run(new GetData("/a", A));
        run(new Exists("/a", B));
        run(new SetData("/a", new byte[] {1}, -1));
        assertThat(events(1)).containsExactly("100 3 /a", "200 3 /a");
        assertThat(watches.watchCount()).isZero();
        run(new SetData("/a", new byte[] {2}, -1));
        assertThat(events(1)).as("one-shot: nothing more").hasSize(2);
    }

    @Test
    void existsOnAMissingNodeWatchesItsCreationWhileGetDataAndGetChildrenOfAMissingNodeSetNothing() {
        assertThat(run(new GetData("/m", A)).code()).isEqualTo(ZkCode.NONODE);
        assertThat(run(new GetChildren("/m", A)).code()).isEqualTo(ZkCode.NONODE);
        assertThat(watches.watchCount()).isZero();
        assertThat(run(new Exists("/m", A)).code()).isEqualTo(ZkCode.NONODE);
        assertThat(watches.watchCount()).isEqualTo(1);
        create("/m");
        assertThat(events(1)).containsExactly("100 1 /m");
    }

    @Test
    void childWatchesFireOnCreateAndDeleteOfAChildAndDeleteFiresOnceForADataAndChildWatcher() {
        create("/p");
        run(new GetChildren("/p", A));
        create("/p/c");
        assertThat(events(1)).containsExactly("100 4 /p");
        run(new GetChildren("/p", A));
        run(new GetData("/p/c", B));
        run(new GetChildren("/p/c", B));
        run(new Delete("/p/c", -1));
        assertThat(events(1)).containsExactly("100 4 /p", "200 2 /p/c", "100 4 /p");
    }

    @Test
    void aFailedWriteFiresNothingAndAWatcherIsHeldOncePerPath() {
        create("/f");
        run(new GetData("/f", A));
        run(new GetData("/f", A));
        assertThat(watches.watchCount()).isEqualTo(1);
        assertThat(run(new SetData("/f", new byte[0], 7)).code()).isEqualTo(ZkCode.BADVERSION);
        assertThat(run(new Create("/f", new byte[0], CreateMode.PERSISTENT)).code()).isEqualTo(ZkCode.NODEEXISTS);
        assertThat(events(1)).isEmpty();
        assertThat(watches.watchCount()).isEqualTo(1);
    }

    @Test
    void aPollForgetsWhatItAcknowledgesAndEventsAreNumberedPerFrontEnd() {
        create("/q");
        for (int i = 0; i < 3; i++) {
            run(new GetData("/q", A));
            run(new GetData("/q", OTHER_FRONT_END));
            run(new SetData("/q", new byte[] {(byte) i}, -1));
        }
        ZkReply first = run(new WatchPoll(0, 1, 0));
        assertThat(first.events()).extracting(WatchEvent::seq).containsExactly(1L, 2L, 3L);
        assertThat(run(new WatchPoll(0, 1, 2)).events()).extracting(WatchEvent::seq).containsExactly(3L);
        assertThat(watches.pending(1)).isEqualTo(1);
        assertThat(run(new WatchPoll(0, 1, 3)).events()).isEmpty();
        assertThat(watches.pending(1)).isZero();
        assertThat(watches.pending(2)).as("the other front end's queue is its own").isEqualTo(3);
        assertThat(run(new WatchPoll(0, 9, 0)).events()).isEmpty();
    }

    @Test
    void aDropForgetsASessionOrAWholeFrontEnd() {
        create("/d");
        run(new GetData("/d", A));
        run(new GetData("/d", B));
        run(new GetData("/d", OTHER_FRONT_END));
        run(new SetData("/d", new byte[0], -1));
        run(new Exists("/x", A));
        run(new Exists("/x", B));
        assertThat(run(new WatchDrop(0, 1, 100))).isEqualTo(ZkReply.ok());
        assertThat(events(1)).containsExactly("200 3 /d");
        assertThat(watches.watchCount()).isEqualTo(1);
        run(new WatchDrop(0, 1, WatchDrop.ALL_SESSIONS));
        assertThat(events(1)).isEmpty();
        assertThat(watches.watchCount()).isZero();
        assertThat(events(2)).containsExactly("100 3 /d");
        create("/x");
        assertThat(events(1)).isEmpty();
        // the numbering goes on after a drop, so a front end never mistakes a new event for a delivered one
        run(new GetData("/x", A));
        run(new SetData("/x", new byte[0], -1));
        assertThat(watches.peek(1, 0)).extracting(WatchEvent::seq).containsExactly(3L);
    }

    @Test
    void aFrontEndThatStopsPollingIsForgottenAtTheBoundAndToldSo() {
        create("/b");
        for (int i = 0; i < ZnodeWatches.MAX_PENDING; i++) {
            run(new GetData("/b", A));
            run(new SetData("/b", new byte[0], -1));
        }
        assertThat(watches.pending(1)).isEqualTo(ZnodeWatches.MAX_PENDING);
        assertThat(run(new WatchPoll(0, 1, 0)).events()).hasSize(ZnodeWatches.MAX_POLL);
        run(new GetData("/b", A));
        run(new GetData("/other", B)); // not set: no such znode; the front end's every watch is forgotten below
        run(new Exists("/c", B));
        run(new SetData("/b", new byte[0], -1));
        assertThat(watches.forgottenFrontEnds()).isEqualTo(1);
        assertThat(watches.pending(1)).as("the reset event alone").isEqualTo(1);
        assertThat(run(new WatchPoll(0, 1, 0)).events()).containsExactly(new WatchEvent(ZnodeWatches.MAX_PENDING + 1L,
                WatchDrop.ALL_SESSIONS, WatchEvent.FRONT_END_RESET, "/"));
        assertThat(watches.watchCount()).as("/c's exist watch of the same front end went too").isZero();
        assertThat(run(new WatchPoll(0, 1, ZnodeWatches.MAX_PENDING + 1L)).events()).isEmpty();
    }

    @Test
    void aWatchPastTheBoundIsRefusedWithThrottledOpAndCounted() {
        ZnodeWatches small = new ZnodeWatches(1, 8);
        ZnodeTree t = new ZnodeTree();
        new Create("/x", new byte[0], CreateMode.PERSISTENT).applyTo(t, small, 1, 0);
        new Create("/y", new byte[0], CreateMode.PERSISTENT).applyTo(t, small, 2, 0);
        assertThat(new GetData("/x", A).applyTo(t, small, 2, 0).isOk()).isTrue();
        assertThat(new GetData("/x", A).applyTo(t, small, 2, 0).isOk()).as("held already: no new watch").isTrue();
        ZkReply refused = new GetChildren("/y", A).applyTo(t, small, 2, 0);
        assertThat(refused.code()).isEqualTo(ZkCode.THROTTLEDOP);
        assertThat(refused.zxid()).isEqualTo(2);
        assertThat(new Exists("/y", B).applyTo(t, small, 2, 0).code()).isEqualTo(ZkCode.THROTTLEDOP);
        assertThat(new AddWatch("/y", true, B).applyTo(t, small, 2, 0).code()).isEqualTo(ZkCode.THROTTLEDOP);
        assertThat(new GetData("/y", null).applyTo(t, small, 2, 0).isOk()).as("no watch asked").isTrue();
        assertThat(small.watchCount()).isEqualTo(1);
        assertThat(small.refusedWatches()).isEqualTo(3);
    }

    @Test
    void theSnapshotRestoresAnEqualStateAndRefusesGarbage() {
        create("/s");
        create("/s/c");
        run(new GetData("/s", A));
        run(new GetChildren("/s", B));
        run(new Exists("/none", OTHER_FRONT_END));
        run(new GetData("/s/c", A));
        run(new SetData("/s/c", new byte[0], -1));
        byte[] bytes = watches.snapshot();
        ZnodeWatches restored = ZnodeWatches.restore(ByteBuffer.wrap(bytes));
        assertThat(restored.snapshot()).isEqualTo(bytes);
        assertThat(restored.watchCount()).isEqualTo(3);
        assertThat(restored.peek(1, 0)).isEqualTo(watches.peek(1, 0));

        assertThatThrownBy(() -> ZnodeWatches.restore(ByteBuffer.wrap(Arrays.copyOf(bytes, bytes.length - 1))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ZnodeWatches.restore(ByteBuffer.wrap(Arrays.copyOf(bytes, bytes.length + 1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("after the watch state");
        assertThatThrownBy(() -> ZnodeWatches.restore(ByteBuffer.wrap(new byte[] {0x7f, 0, 0, 0})))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad count");
        assertThat(new ZnodeWatches().snapshot()).isEqualTo(ZnodeWatches.restore(ByteBuffer.wrap(new ZnodeWatches().snapshot())).snapshot());
    }

    @Test
    void aPersistentWatchFiresOnEveryChangeOfItsNodeAndItsChildrenAndStays() {
        create("/p");
        watches.addPersistent("/p", false, A);
        run(new SetData("/p", new byte[] {1}, -1));
        run(new SetData("/p", new byte[] {2}, -1));
        create("/p/c");
        run(new SetData("/p/c", new byte[0], -1)); // a child's data: not its business
        run(new Delete("/p/c", -1));
        run(new Delete("/p", -1));
        create("/p");
        assertThat(events(1)).containsExactly("100 3 /p", "100 3 /p", "100 4 /p", "100 4 /p", "100 2 /p", "100 1 /p");
        assertThat(watches.watchCount()).isEqualTo(1);
    }

    @Test
    void aRecursiveWatchSeesTheWholeSubtreeButNoChildEventsAndOnlyAtThePathsOwner() {
        create("/r");
        watches.addPersistent("/r", true, A);
        watches.addPersistent("/r", false, A); // the same watcher twice: one event per change
        create("/r/a");
        create("/r/a/b");
        run(new SetData("/r/a/b", new byte[0], -1));
        run(new Delete("/r/a/b", -1));
        create("/other");
        assertThat(events(1)).containsExactly("100 1 /r/a", "100 4 /r", "100 1 /r/a/b", "100 3 /r/a/b", "100 2 /r/a/b");

        // Among 2 partitions, a partition fires a recursive watch only for the paths it owns.
        ZnodeWatches at0 = new ZnodeWatches();
        ZnodeWatches at1 = new ZnodeWatches();
        at0.ownership(0, 2);
        at1.ownership(1, 2);
        for (ZnodeWatches w : List.of(at0, at1)) {
            w.addPersistent("/", true, B);
        }
        ZnodeTree t0 = new ZnodeTree();
        ZnodeTree t1 = new ZnodeTree();
        for (int i = 0; i < 6; i++) {
            Create c = new Create("/n" + i, new byte[0], CreateMode.PERSISTENT);
            c.applyTo(t0, at0, i + 1, 0);
            c.applyTo(t1, at1, i + 1, 0);
        }
        List<String> fired = new java.util.ArrayList<>();
        at0.peek(1, 0).forEach(e -> fired.add(e.path()));
        at1.peek(1, 0).forEach(e -> fired.add(e.path()));
        assertThat(fired).containsExactlyInAnyOrder("/n0", "/n1", "/n2", "/n3", "/n4", "/n5");
        assertThat(at0.peek(1, 0)).allMatch(e -> VoleryOracle.partitionOf(e.path(), 2) == 0);
    }

    @Test
    void removeWatchesTakesTheTypeItNames() {
        create("/x");
        run(new GetData("/x", A));
        run(new GetChildren("/x", A));
        watches.addPersistent("/x", false, A);
        watches.addPersistent("/x", true, A);
        assertThat(watches.watchCount()).isEqualTo(4);
        run(new RemoveWatches("/x", ZnodeWatches.REMOVE_CHILDREN, A));
        assertThat(watches.watchCount()).isEqualTo(3);
        run(new RemoveWatches("/x", ZnodeWatches.REMOVE_DATA, A));
        assertThat(watches.watchCount()).isZero();
        run(new AddWatch("/x", true, B));
        assertThat(run(new AddWatch("bad", false, B))).isEqualTo(ZkReply.error(ZkCode.BADARGUMENTS));
        assertThat(watches.watchCount()).isEqualTo(1);
        byte[] bytes = watches.snapshot();
        assertThat(ZnodeWatches.restore(ByteBuffer.wrap(bytes)).snapshot()).as("persistent watches in the snapshot")
                .isEqualTo(bytes);
        run(new RemoveWatches("/x", ZnodeWatches.REMOVE_ANY, B));
        assertThat(watches.watchCount()).isZero();
    }
}
