package dev.parallax.examples.volery.zk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parallax.core.client.ClusterUnavailableException;
import dev.parallax.examples.volery.GetData;
import dev.parallax.examples.volery.RemoveWatches;
import dev.parallax.examples.volery.VoleryCommand;
import dev.parallax.examples.volery.VoleryOracle;
import dev.parallax.examples.volery.WatchDrop;
import dev.parallax.examples.volery.WatchEvent;
import dev.parallax.examples.volery.WatchPoll;
import dev.parallax.examples.volery.ZkReply;
import dev.parallax.examples.volery.ZnodeWatches;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ZkWatchHub} against a scripted two-partition backend: duplicate events from overlapping polls,
 * acknowledgements, failed polls, events for sessions not here, one-shot versus persistent
 * registrations, and what a session's end and a removal send.
 */
class ZkWatchHubTest {
    private static final int FRONT_END = 3;

    /** Records every command; answers polls from a script (OK with no events when it runs out). */
    private static final class ScriptedBackend implements VoleryBackend {
        final List<VoleryCommand> submitted = new ArrayList<>();
        final Queue<CompletableFuture<ZkReply>> polls = new ArrayDeque<>();

        @Override
        public synchronized CompletableFuture<ZkReply> submit(VoleryCommand command) {
            submitted.add(command);
            if (command instanceof WatchPoll) {
                CompletableFuture<ZkReply> next = polls.poll();
                return next != null ? next : CompletableFuture.completedFuture(ZkReply.events(List.of()));
            }
            return CompletableFuture.completedFuture(ZkReply.ok());
        }

        @Override
        public int partitions() {
            return 2;
        }

        synchronized List<WatchPoll> polls() {
            return submitted.stream().filter(c -> c instanceof WatchPoll)
                    .map(c -> (WatchPoll) c).toList();
        }

        synchronized List<VoleryCommand> of(Class<?> type) {
            return submitted.stream().filter(type::isInstance).toList();
        }
    }

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ScriptedBackend backend = new ScriptedBackend();
    private final ZkSessions sessions = new ZkSessions(ZkServerConfig.of("127.0.0.1", 0), System::nanoTime);
    private final ZkMetrics metrics = new ZkMetrics(registry, () -> 0, sessions::size);
    private final ZkWatchHub hub = new ZkWatchHub(FRONT_END, backend, sessions, metrics);
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final long session = sessions.create(10_000, channel).id();

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    private double watches(String event) {
        return registry.get("parallax.volery.zk.watches").tag("event", event).counter().count();
    }

    /** A path owned by {@code partition} of 2. */
    private static String ownedBy(int partition) {
        for (int i = 0; ; i++) {
            if (VoleryOracle.partitionOf("/n" + i, 2) == partition) {
                return "/n" + i;
            }
        }
    }

    private void dataWatch(String path) {
        GetData read = new GetData(path, hub.watcher(session));
        hub.beforeSetting(read);
        hub.onWatchRead(session, read, ZkReply.ok());
    }

    /** The notifications written to the session's channel so far, as "type path". */
    private List<String> written() {
        List<String> out = new ArrayList<>();
        for (Object o; (o = channel.readOutbound()) != null; ) {
            ByteBuf b = (ByteBuf) o;
            try {
                b.skipBytes(4 + 4 + 8 + 4); // length, xid -1, zxid -1, err 0
                int type = b.readInt();
                b.readInt(); // state
                byte[] path = new byte[b.readInt()];
                b.readBytes(path);
                out.add(type + " " + new String(path, java.nio.charset.StandardCharsets.UTF_8));
            } finally {
                b.release();
            }
        }
        return out;
    }

    @Test
    void overlappingPollsDeliverAnEventOnceAndTheNextPollAcknowledgesIt() {
        String a = ownedBy(0);
        dataWatch(a);
        assertThat(backend.of(WatchDrop.class)).as("a previous run's leftovers dropped first")
                .extracting(c -> ((WatchDrop) c).partition()).containsExactly(0);
        CompletableFuture<ZkReply> first = new CompletableFuture<>();
        CompletableFuture<ZkReply> second = new CompletableFuture<>();
        backend.polls.add(first);
        backend.polls.add(second);
        hub.pollAll(); // the timer's poll of partition 0 ...
        CompletableFuture<Void> held = hub.beforeReply(session, new GetData(a)); // ... and a reply's
        assertThat(backend.polls()).extracting(WatchPoll::partition).containsExactly(0, 0);
        WatchEvent fired = new WatchEvent(7, session, WatchEvent.NODE_DATA_CHANGED, a);
        first.complete(ZkReply.events(List.of(fired)));
        second.complete(ZkReply.events(List.of(fired)));
        held.join();
        channel.runPendingTasks();
        assertThat(written()).containsExactly(WatchEvent.NODE_DATA_CHANGED + " " + a);
        assertThat(watches("delivered")).isEqualTo(1);

        hub.pollAll();
        assertThat(backend.polls()).as("the one-shot watch fired: nothing left to poll").hasSize(2);
        dataWatch(a);
        hub.pollAll();
        assertThat(backend.polls()).last().extracting(WatchPoll::acked).as("acknowledges event 7")
                .isEqualTo(7L);
        assertThat(backend.of(WatchDrop.class)).as("dropped once per run, not per watch").hasSize(1);
    }

    @Test
    void aFailedPollIsCountedAndRetriedAtTheNextTick() {
        dataWatch(ownedBy(0));
        CompletableFuture<ZkReply> failing = new CompletableFuture<>();
        backend.polls.add(failing);
        hub.pollAll();
        hub.pollAll(); // the first poll is still in flight: no second one
        assertThat(backend.polls()).hasSize(1);
        failing.completeExceptionally(new ClusterUnavailableException("down"));
        assertThat(watches("poll-failed")).isEqualTo(1);
        hub.pollAll();
        assertThat(backend.polls()).hasSize(2);
    }

    @Test
    void anEventForASessionNotConnectedHereIsDroppedAndCounted() {
        String a = ownedBy(0);
        dataWatch(a);
        backend.polls.add(CompletableFuture.completedFuture(ZkReply.events(List.of(
                new WatchEvent(1, session + 1, WatchEvent.NODE_DELETED, a)))));
        hub.pollAll();
        assertThat(watches("undeliverable")).isEqualTo(1);
        channel.runPendingTasks();
        assertThat(written()).isEmpty();
    }

    @Test
    void persistentWatchesSurviveTheirEventsAndTheSessionsEndDropsEveryKindWhereItIsHeld() {
        String a = ownedBy(0);
        hub.addWatch(session, a, false).join();
        hub.addWatch(session, "/tree", true).join(); // held by both partitions
        for (int seq = 1; seq <= 2; seq++) {
            backend.polls.add(CompletableFuture.completedFuture(ZkReply.events(List.of(
                    new WatchEvent(seq, session, WatchEvent.NODE_DATA_CHANGED, a)))));
            hub.beforeReply(session, new GetData(a)).join();
        }
        channel.runPendingTasks();
        assertThat(written()).hasSize(2);
        assertThat(hub.hasWatch(session, a, ZnodeWatches.REMOVE_DATA)).as("persistent: still set").isTrue();
        assertThat(hub.hasWatch(session, a, ZnodeWatches.REMOVE_CHILDREN)).isFalse();

        assertThat(hub.removeWatches(session, "/none", ZnodeWatches.REMOVE_ANY).join()).isEqualTo(ZkCodes.NOWATCHER);
        assertThat(backend.of(RemoveWatches.class)).as("answered here, nothing sent").isEmpty();

        hub.sessionEnded(session);
        assertThat(backend.of(WatchDrop.class)).filteredOn(c -> ((WatchDrop) c).session() == session)
                .extracting(c -> ((WatchDrop) c).partition()).containsExactlyInAnyOrder(0, 1);
        int before = backend.polls().size();
        hub.pollAll();
        assertThat(backend.polls()).as("nothing left to poll").hasSize(before);
    }
}
