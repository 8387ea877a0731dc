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
        assertThat(run(new VoleryCommand.Create(path, new byte[0], CreateMode.PERSISTENT)).isOk()).isTrue();
    }

    private List<String> events(int frontEnd) {
        return watches.peek(frontEnd, 0).stream().map(e -> e.session() + " " + e.type() + " " + e.path()).toList();
    }

    @Test
    void getDataAndExistsSetDataWatchesThatSetDataAndDeleteFire() {
        create("/a");
        run(new VoleryCommand.GetData("/a", A));
        run(new VoleryCommand.Exists("/a", B));
        run(new VoleryCommand.SetData("/a", new byte[] {1}, -1));
        assertThat(events(1)).containsExactly("100 3 /a", "200 3 /a");
        assertThat(watches.watchCount()).isZero();
        run(new VoleryCommand.SetData("/a", new byte[] {2}, -1));
        assertThat(events(1)).as("one-shot: nothing more").hasSize(2);
    }

    @Test
    void existsOnAMissingNodeWatchesItsCreationWhileGetDataAndGetChildrenOfAMissingNodeSetNothing() {
        assertThat(run(new VoleryCommand.GetData("/m", A)).code()).isEqualTo(ZkCode.NONODE);
        assertThat(run(new VoleryCommand.GetChildren("/m", A)).code()).isEqualTo(ZkCode.NONODE);
        assertThat(watches.watchCount()).isZero();
        assertThat(run(new VoleryCommand.Exists("/m", A)).code()).isEqualTo(ZkCode.NONODE);
        assertThat(watches.watchCount()).isEqualTo(1);
        create("/m");
        assertThat(events(1)).containsExactly("100 1 /m");
    }

    @Test
    void childWatchesFireOnCreateAndDeleteOfAChildAndDeleteFiresOnceForADataAndChildWatcher() {
        create("/p");
        run(new VoleryCommand.GetChildren("/p", A));
        create("/p/c");
        assertThat(events(1)).containsExactly("100 4 /p");
        run(new VoleryCommand.GetChildren("/p", A));
        run(new VoleryCommand.GetData("/p/c", B));
        run(new VoleryCommand.GetChildren("/p/c", B));
        run(new VoleryCommand.Delete("/p/c", -1));
        assertThat(events(1)).containsExactly("100 4 /p", "200 2 /p/c", "100 4 /p");
    }

    @Test
    void aFailedWriteFiresNothingAndAWatcherIsHeldOncePerPath() {
        create("/f");
        run(new VoleryCommand.GetData("/f", A));
        run(new VoleryCommand.GetData("/f", A));
        assertThat(watches.watchCount()).isEqualTo(1);
        assertThat(run(new VoleryCommand.SetData("/f", new byte[0], 7)).code()).isEqualTo(ZkCode.BADVERSION);
        assertThat(run(new VoleryCommand.Create("/f", new byte[0], CreateMode.PERSISTENT)).code()).isEqualTo(ZkCode.NODEEXISTS);
        assertThat(events(1)).isEmpty();
        assertThat(watches.watchCount()).isEqualTo(1);
    }

    @Test
    void aPollForgetsWhatItAcknowledgesAndEventsAreNumberedPerFrontEnd() {
        create("/q");
        for (int i = 0; i < 3; i++) {
            run(new VoleryCommand.GetData("/q", A));
            run(new VoleryCommand.GetData("/q", OTHER_FRONT_END));
            run(new VoleryCommand.SetData("/q", new byte[] {(byte) i}, -1));
        }
        ZkReply first = run(new VoleryCommand.WatchPoll(0, 1, 0));
        assertThat(first.events()).extracting(WatchEvent::seq).containsExactly(1L, 2L, 3L);
        assertThat(run(new VoleryCommand.WatchPoll(0, 1, 2)).events()).extracting(WatchEvent::seq).containsExactly(3L);
        assertThat(watches.pending(1)).isEqualTo(1);
        assertThat(run(new VoleryCommand.WatchPoll(0, 1, 3)).events()).isEmpty();
        assertThat(watches.pending(1)).isZero();
        assertThat(watches.pending(2)).as("the other front end's queue is its own").isEqualTo(3);
        assertThat(run(new VoleryCommand.WatchPoll(0, 9, 0)).events()).isEmpty();
    }

    @Test
    void aDropForgetsASessionOrAWholeFrontEnd() {
        create("/d");
        run(new VoleryCommand.GetData("/d", A));
        run(new VoleryCommand.GetData("/d", B));
        run(new VoleryCommand.GetData("/d", OTHER_FRONT_END));
        run(new VoleryCommand.SetData("/d", new byte[0], -1));
        run(new VoleryCommand.Exists("/x", A));
        run(new VoleryCommand.Exists("/x", B));
        assertThat(run(new VoleryCommand.WatchDrop(0, 1, 100))).isEqualTo(ZkReply.ok());
        assertThat(events(1)).containsExactly("200 3 /d");
        assertThat(watches.watchCount()).isEqualTo(1);
        run(new VoleryCommand.WatchDrop(0, 1, VoleryCommand.WatchDrop.ALL_SESSIONS));
        assertThat(events(1)).isEmpty();
        assertThat(watches.watchCount()).isZero();
        assertThat(events(2)).containsExactly("100 3 /d");
        create("/x");
        assertThat(events(1)).isEmpty();
        // the numbering goes on after a drop, so a front end never mistakes a new event for a delivered one
        run(new VoleryCommand.GetData("/x", A));
        run(new VoleryCommand.SetData("/x", new byte[0], -1));
        assertThat(watches.peek(1, 0)).extracting(WatchEvent::seq).containsExactly(3L);
    }

    @Test
    void aFrontEndThatStopsPollingIsForgottenAtTheBound() {
        create("/b");
        for (int i = 0; i < ZnodeWatches.MAX_PENDING; i++) {
            run(new VoleryCommand.GetData("/b", A));
            run(new VoleryCommand.SetData("/b", new byte[0], -1));
        }
        assertThat(watches.pending(1)).isEqualTo(ZnodeWatches.MAX_PENDING);
        assertThat(run(new VoleryCommand.WatchPoll(0, 1, 0)).events()).hasSize(ZnodeWatches.MAX_POLL);
        run(new VoleryCommand.GetData("/b", A));
        run(new VoleryCommand.SetData("/b", new byte[0], -1));
        assertThat(watches.pending(1)).isZero();
        assertThat(watches.forgottenFrontEnds()).isEqualTo(1);
    }

    @Test
    void theSnapshotRestoresAnEqualStateAndRefusesGarbage() {
        create("/s");
        create("/s/c");
        run(new VoleryCommand.GetData("/s", A));
        run(new VoleryCommand.GetChildren("/s", B));
        run(new VoleryCommand.Exists("/none", OTHER_FRONT_END));
        run(new VoleryCommand.GetData("/s/c", A));
        run(new VoleryCommand.SetData("/s/c", new byte[0], -1));
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
}
