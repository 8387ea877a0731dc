package dev.parallax.examples.volery;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Ephemeral nodes and the replicated session table ({@link ZnodeSessions} rules 1-5, {@link ZnodeTree}). */
class ZnodeEphemeralTest {
    private static final long S = 0x0100000000000001L;
    private static final long T = 0x0100000000000002L;
    private final ZnodeTree tree = new ZnodeTree();
    private final ZnodeWatches watches = new ZnodeWatches();

    private ZkReply run(VoleryCommand c, long zxid, long time) {
        return c.applyTo(tree, watches, zxid, time);
    }

    private static Create ephemeral(String path, long owner) {
        return Create.ephemeral(path, new byte[] {1}, false, owner, 1000);
    }

    @Test
    @DisplayName("rule 1: an ephemeral create registers its session; the node names its owner; no children under it")
    void anEphemeralNodeNamesItsOwnerAndTakesNoChildren() {
        ZkReply created = run(ephemeral("/e", S), 1, 100);
        assertThat(created.stat().ephemeralOwner()).isEqualTo(S);
        assertThat(tree.sessions().status(S)).isEqualTo(ZnodeSessions.Status.LIVE);
        assertThat(tree.exists("/e").stat().ephemeralOwner()).isEqualTo(S);
        assertThat(run(new Create("/e/c", new byte[0], CreateMode.PERSISTENT), 2, 100).code())
                .isEqualTo(ZkCode.NOCHILDRENFOREPHEMERALS);
        assertThat(run(ephemeral("/e", S), 3, 100).code()).as("NODEEXISTS comes first").isEqualTo(ZkCode.NODEEXISTS);
        ZkReply seq = run(Create.ephemeral("/s-", new byte[0], true, S, 1000), 4, 100);
        assertThat(seq.path()).isEqualTo("/s-0000000001");
        assertThat(tree.create("/p", new byte[0], CreateMode.EPHEMERAL, 5, 100).code())
                .as("an ephemeral create without a session").isEqualTo(ZkCode.BADARGUMENTS);
    }

    @Test
    @DisplayName("rules 2-4: a tick touches the listed sessions and expires the overdue ones, deleting their nodes and firing watches")
    void aTickExpiresOverdueSessionsEverywhereAlike() {
        run(ephemeral("/s", S), 1, 1_000);
        run(ephemeral("/t", T), 2, 1_000);
        watches.ownership(0, 1);
        run(new Exists("/s", new Watcher(1, 77)), 2, 0);
        ZkReply first = run(new SessionTick(new long[] {T}), 3, 1_800);
        assertThat(SessionTick.statuses(first)).containsExactly(ZnodeSessions.Status.LIVE);
        assertThat(SessionTick.liveSessions(first)).isEqualTo(2);
        // S was last seen at 1,000; T at 1,800: at 2,100 only S is more than 1,000 ms behind
        ZkReply second = run(new SessionTick(new long[] {S, T}, 0), 4, 2_100);
        assertThat(SessionTick.statuses(second)).containsExactly(ZnodeSessions.Status.LIVE, ZnodeSessions.Status.LIVE);
        ZkReply third = run(new SessionTick(new long[] {T}), 5, 3_100);
        assertThat(SessionTick.statuses(third)).containsExactly(ZnodeSessions.Status.LIVE);
        assertThat(tree.exists("/s").isOk()).as("S touched at 2,100, 1,000 ms ago").isTrue();
        ZkReply expiring = run(new SessionTick(new long[] {T}), 7, 3_101);
        assertThat(SessionTick.liveSessions(expiring)).isEqualTo(1);
        assertThat(tree.exists("/s").code()).isEqualTo(ZkCode.NONODE);
        assertThat(tree.exists("/t").isOk()).isTrue();
        assertThat(tree.sessions().status(S)).isEqualTo(ZnodeSessions.Status.ENDED);
        assertThat(watches.poll(1, 0)).extracting(WatchEvent::type, WatchEvent::path)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(WatchEvent.NODE_DELETED, "/s"));
        assertThat(run(ephemeral("/again", S), 8, 4_200).code()).as("rule 5").isEqualTo(ZkCode.SESSIONEXPIRED);
    }

    @Test
    @DisplayName("order time never goes back: a front end with a slow clock cannot revive or delay anything")
    void orderTimeIsMonotonic() {
        run(ephemeral("/s", S), 1, 5_000);
        run(new SessionTick(new long[0]), 2, 1_000);
        assertThat(tree.sessions().now()).isEqualTo(5_000);
        run(new SessionTick(new long[0]), 3, 6_001);
        assertThat(tree.exists("/s").code()).isEqualTo(ZkCode.NONODE);
    }

    @Test
    @DisplayName("closeSession deletes the session's nodes at once and ends it; a delete of an ephemeral node disowns it")
    void closeSessionDeletesItsNodes() {
        run(ephemeral("/a", S), 1, 10);
        run(ephemeral("/b", S), 2, 10);
        run(new Delete("/a", -1), 3, 10);
        ZkReply closed = run(new CloseSession(S), 4, 20);
        assertThat(closed.isOk()).isTrue();
        assertThat(tree.getChildren("/").children()).isEmpty();
        assertThat(tree.sessions().status(S)).isEqualTo(ZnodeSessions.Status.ENDED);
        assertThat(run(new CloseSession(T), 5, 20).isOk()).as("closing an unknown session ends it too").isTrue();
        assertThat(run(ephemeral("/c", T), 6, 20).code()).isEqualTo(ZkCode.SESSIONEXPIRED);
    }

    @Test
    @DisplayName("the sessions and owners survive a snapshot; version-1 snapshots still restore")
    void sessionsSurviveASnapshot() {
        run(ephemeral("/a", S), 1, 10);
        run(new CloseSession(T), 2, 20);
        ZnodeTree restored = ZnodeTree.restore(tree.snapshot());
        assertThat(restored.digest()).isEqualTo(tree.digest());
        assertThat(restored.sessions().status(S)).isEqualTo(ZnodeSessions.Status.LIVE);
        assertThat(restored.sessions().status(T)).isEqualTo(ZnodeSessions.Status.ENDED);
        List<String> deleted = new ArrayList<>();
        restored.closeSession(S, 3, 30, deleted);
        assertThat(deleted).containsExactly("/a");
    }

    @Test
    @DisplayName("rule 5: the memory of ended sessions is bounded, oldest forgotten first")
    void endedSessionsAreBounded() {
        for (long id = 1; id <= ZnodeSessions.MAX_ENDED + 1; id++) {
            tree.closeSession(id, 1, 1, new ArrayList<>());
        }
        assertThat(tree.sessions().status(1)).isEqualTo(ZnodeSessions.Status.UNKNOWN);
        assertThat(tree.sessions().status(2)).isEqualTo(ZnodeSessions.Status.ENDED);
    }
}
