package dev.parallax.core.runtime;

import dev.parallax.core.liveness.FailureDetector;
import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.testkit.LocalNetwork;
import dev.parallax.core.testkit.ToySequencer;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The runtime is generic: it runs a protocol it knows nothing about (the testkit's toy sequencer)
 * with recovery from the log, in-order delivery with no-ops skipped, failure-detector wiring,
 * metrics tagged by instance, several instances on shared threads, and a clean close.
 */
class ProtocolRuntimeTest {
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private static String text(ByteBuffer b) {
        return StandardCharsets.UTF_8.decode(b.duplicate()).toString();
    }

    private ProtocolRuntime<ToySequencer.Order, ToySequencer.Order, String, ToySequencer.SequencerCore> runtime(
            String name, int id, LocalNetwork<ToySequencer.Order> net, InMemoryDurableLog.Storage storage,
            SimpleMeterRegistry registry, StageThreads threads, List<List<ToySequencer.Order>> recoveredSeen) {
        ProtocolRuntime.Builder<ToySequencer.Order, ToySequencer.Order, String, ToySequencer.SequencerCore> b =
                ProtocolRuntime.builder(name);
        b.members(id, 3).transport(net.transport(id)).log(InMemoryDurableLog.open(storage), ToySequencer.ORDERS)
                .core((recovered, amnesiac, now) -> {
                    recoveredSeen.add(List.copyOf(recovered));
                    return new ToySequencer.SequencerCore(id, recovered);
                })
                .values(bytes -> text(bytes), v -> v.equals("-") ? null : ByteBuffer.wrap(v.getBytes(StandardCharsets.UTF_8)))
                .clock(SystemClock.INSTANCE).meterRegistry(registry);
        if (threads != null) {
            b.threads(threads);
        }
        return b.build();
    }

    @Test
    void aProtocolTheRuntimeKnowsNothingAboutOrdersDeliversAndRecovers() throws InterruptedException {
        LocalNetwork<ToySequencer.Order> net = new LocalNetwork<>(3);
        List<InMemoryDurableLog.Storage> disks = List.of(new InMemoryDurableLog.Storage(), new InMemoryDurableLog.Storage(),
                new InMemoryDurableLog.Storage());
        List<BlockingQueue<String>> delivered = new ArrayList<>();
        List<List<ToySequencer.Order>> recovered = new CopyOnWriteArrayList<>();
        List<ProtocolRuntime<ToySequencer.Order, ToySequencer.Order, String, ToySequencer.SequencerCore>> members =
                new ArrayList<>();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        for (int id = 0; id < 3; id++) {
            BlockingQueue<String> q = new LinkedBlockingQueue<>();
            delivered.add(q);
            var r = runtime("toy", id, net, disks.get(id), id == 0 ? registry : new SimpleMeterRegistry(), null, recovered);
            open.add(r);
            members.add(r);
            r.start((seq, value) -> q.add(seq + "=" + text(value)));
        }
        for (String v : new String[]{"a", "-", "b", "c"}) {
            while (!members.get(0).propose(ByteBuffer.wrap(v.getBytes(StandardCharsets.UTF_8)))) {
                Thread.onSpinWait();
            }
        }
        for (BlockingQueue<String> q : delivered) {
            assertThat(q.poll(20, TimeUnit.SECONDS)).isEqualTo("0=a");
            assertThat(q.poll(20, TimeUnit.SECONDS)).as("the no-op at 1 is skipped").isEqualTo("2=b");
            assertThat(q.poll(20, TimeUnit.SECONDS)).isEqualTo("3=c");
        }
        assertThat(recovered).allMatch(List::isEmpty);
        assertThat(registry.get("parallax.protocol.decided").tag("protocol", "toy").functionCounter().count()).isEqualTo(4);
        assertThat(registry.get("parallax.protocol.syncs").tag("protocol", "toy").functionCounter().count()).isPositive();
        assertThat(registry.get("parallax.protocol.inbound.dropped").tag("protocol", "toy").counter().count()).isZero();
        // The bytes are counted just after the listener returns: wait for the last one.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (registry.get("parallax.protocol.delivered.bytes").tag("protocol", "toy").functionCounter().count() < 3
                && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
        assertThat(registry.get("parallax.protocol.delivered.bytes").tag("protocol", "toy").functionCounter().count())
                .as("a, b and c: one byte each; the no-op delivers none").isEqualTo(3);

        // A restart recovers the records the core persisted, through the core factory.
        members.get(2).close();
        var again = runtime("toy", 2, new LocalNetwork<>(3), disks.get(2), new SimpleMeterRegistry(), null, recovered);
        open.add(again);
        again.start((seq, value) -> { });
        assertThat(recovered.get(recovered.size() - 1)).extracting(ToySequencer.Order::instance).containsExactly(0L, 1L, 2L, 3L);
    }

    @Test
    void twoInstancesShareThreadsAndKeepTheirMetricsApart() throws InterruptedException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        StageThreads threads = StageThreads.builder(dev.parallax.core.stage.ThreadPlacement.STAGED).meterRegistry(registry).build();
        open.add(threads);
        List<List<ToySequencer.Order>> recovered = new CopyOnWriteArrayList<>();
        CountDownLatch both = new CountDownLatch(2);
        for (String name : new String[]{"ring-a", "ring-b"}) {
            LocalNetwork<ToySequencer.Order> net = new LocalNetwork<>(3);
            ProtocolRuntime<ToySequencer.Order, ToySequencer.Order, String, ToySequencer.SequencerCore> sequencer = null;
            for (int id = 0; id < 3; id++) {
                var r = runtime(name, id, net, new InMemoryDurableLog.Storage(), registry, threads, recovered);
                open.add(r);
                int self = id;
                r.start((seq, value) -> {
                    if (self == 1) {
                        both.countDown();
                    }
                });
                if (id == 0) {
                    sequencer = r;
                }
            }
            assertThat(sequencer.propose(ByteBuffer.wrap(name.getBytes(StandardCharsets.UTF_8)))).isTrue();
        }
        assertThat(both.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(registry.find("parallax.protocol.decided").tag("protocol", "ring-a").functionCounters()).isNotEmpty();
        assertThat(registry.find("parallax.protocol.decided").tag("protocol", "ring-b").functionCounters()).isNotEmpty();
    }

    /** How long the member watch's rule lets a member be silent before it suspects it. */
    private static final long SILENCE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    @Test
    @DisplayName("a member watch runs a member detector on its own thread and counts its suspicions")
    void theMemberWatchSuspectsSilentMembers() throws InterruptedException {
        LocalNetwork<ToySequencer.Order> net = new LocalNetwork<>(3);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CountDownLatch asked = new CountDownLatch(2);
        List<Integer> members = new CopyOnWriteArrayList<>();
        var r = ProtocolRuntime.<ToySequencer.Order, ToySequencer.Order, String, ToySequencer.SequencerCore>builder("toy")
                .members(1, 3).transport(net.transport(1)).log(InMemoryDurableLog.create(), ToySequencer.ORDERS)
                .core((rec, amnesiac, now) -> new ToySequencer.SequencerCore(1, rec))
                .values(ProtocolRuntimeTest::text, v -> ByteBuffer.wrap(v.getBytes(StandardCharsets.UTF_8)))
                .clock(SystemClock.INSTANCE).meterRegistry(registry)
                .memberWatch(new ProtocolRuntime.MemberWatch((epoch, member, lastHeard, now) -> {
                    members.add(member);
                    asked.countDown();
                    return now - lastHeard >= SILENCE_NANOS;
                }, () -> 0L, () -> 0b111L, 1_000_000L))
                .build();
        open.add(r);
        r.start((seq, v) -> { });
        assertThat(asked.await(20, TimeUnit.SECONDS)).as("the rule was asked about both peers").isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (registry.get("parallax.protocol.member.suspicions").tag("protocol", "toy").functionCounter().count() < 2
                && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
        // At least once each; a member still silent a full time-out later is suspected again
        // (MemberDetector), so a slow machine may count more.
        assertThat(registry.get("parallax.protocol.member.suspicions").tag("protocol", "toy").functionCounter().count())
                .as("members 0 and 2, each silent since epoch 0 began").isGreaterThanOrEqualTo(2);
        assertThat(members).as("never itself").doesNotContain(1).contains(0, 2);
        assertThatThrownBy(() -> new ProtocolRuntime.MemberWatch((e, m, h, n) -> true, () -> 0L, () -> 0L, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theFailureDetectorHandsSuspicionsToTheCoreOnItsOwnThread() throws InterruptedException {
        LocalNetwork<ToySequencer.Order> net = new LocalNetwork<>(3);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CountDownLatch suspected = new CountDownLatch(1);
        ToySequencer.SequencerCore[] core = new ToySequencer.SequencerCore[1];
        FailureDetector.Rule alwaysSuspect = new FailureDetector.Rule() {
            @Override
            public int leaderOf(long view) {
                return 0;
            }

            @Override
            public boolean suspects(long view, long lastHeard, long now) {
                return true;
            }
        };
        var r = ProtocolRuntime.<ToySequencer.Order, ToySequencer.Order, String, ToySequencer.SequencerCore>builder("toy")
                .members(1, 3).transport(net.transport(1)).log(InMemoryDurableLog.create(), ToySequencer.ORDERS)
                .core((rec, amnesiac, now) -> core[0] = new ToySequencer.SequencerCore(1, rec))
                .values(ProtocolRuntimeTest::text, v -> ByteBuffer.wrap(v.getBytes(StandardCharsets.UTF_8)))
                .clock(SystemClock.INSTANCE).meterRegistry(registry)
                .failureDetection(new ProtocolRuntime.FailureDetection(alwaysSuspect, () -> 7L, 1_000_000L))
                .observer(c -> {
                    if (c.suspected() == 7) {
                        suspected.countDown();
                    }
                })
                .build();
        open.add(r);
        r.start((seq, v) -> { });
        assertThat(suspected.await(20, TimeUnit.SECONDS)).as("onSuspect(7) reached the core").isTrue();
        assertThat(registry.get("parallax.protocol.suspicions").tag("protocol", "toy").functionCounter().count())
                .isGreaterThanOrEqualTo(1);
    }

    @Test
    @DisplayName("skipTo with a delivery state reaches the core, before start (newest kept) and after")
    void skipToCarriesTheDeliveryStateToTheCore() throws InterruptedException {
        LocalNetwork<ToySequencer.Order> net = new LocalNetwork<>(3);
        ToySequencer.SequencerCore[] core = new ToySequencer.SequencerCore[1];
        CountDownLatch laterInstall = new CountDownLatch(1);
        var r = ProtocolRuntime.<ToySequencer.Order, ToySequencer.Order, String, ToySequencer.SequencerCore>builder("toy")
                .members(1, 3).transport(net.transport(1)).log(InMemoryDurableLog.create(), ToySequencer.ORDERS)
                .core((rec, amnesiac, now) -> core[0] = new ToySequencer.SequencerCore(1, rec))
                .values(ProtocolRuntimeTest::text, v -> ByteBuffer.wrap(v.getBytes(StandardCharsets.UTF_8)))
                .clock(SystemClock.INSTANCE)
                .observer(c -> {
                    if ("9 [later]".equals(c.installed())) {
                        laterInstall.countDown();
                    }
                })
                .build();
        open.add(r);
        r.skipTo(3, "three".getBytes(StandardCharsets.UTF_8));
        r.skipTo(2, "older".getBytes(StandardCharsets.UTF_8)); // an older install before start is superseded
        r.skipTo(3);                                            // no newer position: the state stays
        r.start((seq, v) -> { });
        assertThat(core[0].installed()).as("installed before start, handed over at start").isEqualTo("3 [three]");

        r.skipTo(9, "later".getBytes(StandardCharsets.UTF_8));
        assertThat(laterInstall.await(20, TimeUnit.SECONDS)).as("the protocol thread handed the state to the core").isTrue();
        assertThat(core[0].installed()).isEqualTo("9 [later]");
    }

    @Test
    @DisplayName("a plain skipTo before start, newer than one with state, reaches the core without state")
    void aNewerPlainSkipToBeforeStartWins() {
        LocalNetwork<ToySequencer.Order> net = new LocalNetwork<>(3);
        ToySequencer.SequencerCore[] core = new ToySequencer.SequencerCore[1];
        var r = ProtocolRuntime.<ToySequencer.Order, ToySequencer.Order, String, ToySequencer.SequencerCore>builder("toy")
                .members(1, 3).transport(net.transport(1)).log(InMemoryDurableLog.create(), ToySequencer.ORDERS)
                .core((rec, amnesiac, now) -> core[0] = new ToySequencer.SequencerCore(1, rec))
                .values(ProtocolRuntimeTest::text, v -> ByteBuffer.wrap(v.getBytes(StandardCharsets.UTF_8)))
                .clock(SystemClock.INSTANCE).build();
        open.add(r);
        r.skipTo(3, "three".getBytes(StandardCharsets.UTF_8));
        r.skipTo(5);
        r.start((seq, v) -> { });
        assertThat(core[0].installed()).isEqualTo("5");
    }

    @Test
    void closeStopsEveryThreadAndProposalsAfterwardsAreRefused() {
        LocalNetwork<ToySequencer.Order> net = new LocalNetwork<>(3);
        var r = runtime("closing", 0, net, new InMemoryDurableLog.Storage(), new SimpleMeterRegistry(), null,
                new ArrayList<>());
        assertThatThrownBy(() -> r.propose(ByteBuffer.allocate(1))).isInstanceOf(IllegalStateException.class);
        r.start((seq, v) -> { });
        assertThat(Thread.getAllStackTraces().keySet()).anyMatch(t -> t.getName().startsWith("closing-protocol-0"));
        r.close();
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith("closing-"));
        assertThatThrownBy(() -> r.propose(ByteBuffer.allocate(1))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> r.start((seq, v) -> { })).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void namesAndMembersAreChecked() {
        assertThatThrownBy(() -> ProtocolRuntime.builder("Has Spaces")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProtocolRuntime.builder("ok").members(32, 3)).isInstanceOf(IllegalArgumentException.class);
        ProtocolRuntime.builder("ok").members(3, 3); // a replica that joins by a membership change: an id beyond the file's
        assertThatThrownBy(() -> ProtocolRuntime.builder("ok").build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("required");
    }
}
