package dev.parallax.examples.volery.zk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parallax.examples.volery.WatchEvent;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A watch's first event waits for the reply of the read that set it ({@link ZkWatchArming}). Found
 * by {@code ZkServerRecipesTest}'s LeaderLatch hand-over, which hung about one run in eight: the
 * NodeDeleted of the leader's node overtook the follower's getData reply, and the client dropped
 * an event for a watch it had not registered yet.
 */
class ZkWatchArmingTest {
    private final ZkWatchArming arming = new ZkWatchArming();

    @Test
    @DisplayName("an event on a path a read of the session is arming is held until that reply, then released in order")
    void heldUntilTheReply() {
        arming.arming(7, 1, "/a");
        WatchEvent first = new WatchEvent(1, 7, WatchEvent.NODE_DATA_CHANGED, "/a");
        WatchEvent other = new WatchEvent(2, 7, WatchEvent.NODE_DELETED, "/b");
        WatchEvent otherSession = new WatchEvent(3, 8, WatchEvent.NODE_DELETED, "/a");
        WatchEvent second = new WatchEvent(4, 7, WatchEvent.NODE_DELETED, "/a");
        assertThat(arming.defer(first)).isTrue();
        assertThat(arming.defer(other)).as("another path").isFalse();
        assertThat(arming.defer(otherSession)).as("another session").isFalse();
        assertThat(arming.defer(second)).isTrue();
        assertThat(arming.replied(7, 2)).as("another request's reply").isEmpty();
        assertThat(arming.replied(7, 1)).containsExactly(first, second);
        assertThat(arming.defer(new WatchEvent(5, 7, WatchEvent.NODE_DELETED, "/a"))).isFalse();
    }

    @Test
    @DisplayName("two reads arming one path: the events wait for the last reply; an ended session is forgotten")
    void twoReadsAndAnEndedSession() {
        arming.arming(7, 1, "/a");
        arming.arming(7, 2, "/a");
        WatchEvent e = new WatchEvent(1, 7, WatchEvent.NODE_DELETED, "/a");
        assertThat(arming.defer(e)).isTrue();
        assertThat(arming.replied(7, 1)).isEmpty();
        assertThat(arming.replied(7, 2)).containsExactly(e);
        arming.arming(9, 1, "/x");
        assertThat(arming.defer(new WatchEvent(2, 9, WatchEvent.NODE_DELETED, "/x"))).isTrue();
        arming.ended(9);
        assertThat(arming.replied(9, 1)).isEmpty();
    }
}
