package dev.parallax.core.testkit;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.AtomicMulticast;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Subscription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract every {@link AtomicMulticast} must pass, with real threads: total order in one
 * group; exact delivery (validity, integrity, at most once) of single- and multi-group messages to
 * every subscription of any destination group; an acyclic order over every subscription's
 * deliveries (a graph check over all of them, and pairwise); several subscriptions per process;
 * messages multicast from every process; resuming from a position; a snapshot install moving a
 * running subscription; back-pressure that refuses without losing an accepted message; close
 * stopping delivery and leaving no thread.
 *
 * <p>Subclasses build {@code n} running processes of one multicast offering the given groups
 * (always at least {0, 1, 2}). Waits are for events (deliveries), with generous time-outs.
 */
public abstract class AtomicMulticastContract {
    /** Generous: the machine running the suite is loaded. */
    protected static final long TIMEOUT_S = 60;
    private final List<AtomicMulticast> created = new ArrayList<>();

    /**
     * Creates the {@code processes} members of one multicast offering {@code groups}, each built
     * and running (subscriptions and multicasts may follow at once). The contract closes them.
     */
    protected abstract List<AtomicMulticast> createCluster(int processes, GroupSet groups);

    @AfterEach
    final void closeAll() {
        created.forEach(AtomicMulticast::close);
    }

    private List<AtomicMulticast> cluster(int processes, GroupSet groups) {
        List<AtomicMulticast> c = createCluster(processes, groups);
        created.addAll(c);
        assertThat(c).hasSize(processes);
        return c;
    }

    private static final GroupSet G012 = GroupSet.of(0, 1, 2);

    // ---------------------------------------------------------------- helpers

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return new String(a, StandardCharsets.UTF_8);
    }

    /** Multicasts, retrying while back-pressure refuses (at start-up no leader may be known yet). */
    private static void send(AtomicMulticast process, GroupSet groups, String message) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        while (!process.multicast(groups, bytes(message))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("could not multicast " + message + " to " + groups);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /** One subscription's deliveries, in order; waits are notified on each delivery. */
    private static class Recorder {
        final String name;
        final GroupSet subscribed;
        final List<String> delivered = new ArrayList<>();
        final List<GroupSet> groups = new ArrayList<>();
        final List<MulticastPosition> positions = new ArrayList<>();
        volatile Subscription subscription;

        Recorder(String name, GroupSet subscribed) {
            this.name = name;
            this.subscribed = subscribed;
        }

        synchronized void record(GroupSet g, ByteBuffer message, MulticastPosition after) {
            delivered.add(text(message));
            groups.add(g);
            positions.add(after);
            notifyAll();
        }

        synchronized void awaitCount(int n) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            while (delivered.size() < n) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError(name + " delivered " + delivered.size() + " of " + n);
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }

        synchronized List<String> delivered() {
            return new ArrayList<>(delivered);
        }

        synchronized List<MulticastPosition> positions() {
            return new ArrayList<>(positions);
        }

        synchronized List<GroupSet> groups() {
            return new ArrayList<>(groups);
        }
    }

    private static Recorder subscribe(AtomicMulticast process, String name, GroupSet groups) {
        Recorder r = new Recorder(name, groups);
        r.subscription = process.subscribe(groups, r::record);
        assertThat(r.subscription.groups()).isEqualTo(groups);
        return r;
    }

    /** What each subscription must deliver: exactly the sent messages whose groups meet its own. */
    private static int expectedCount(Recorder r, Map<String, GroupSet> sent) {
        int n = 0;
        for (GroupSet g : sent.values()) {
            if (g.intersects(r.subscribed)) {
                n++;
            }
        }
        return n;
    }

    /**
     * Validity, integrity and the group sets for every recorder; then the order: pairwise, every
     * two subscriptions deliver their common messages in the same order, and the union of all
     * delivery orders is acyclic.
     */
    private static void checkDeliveries(List<Recorder> recorders, Map<String, GroupSet> sent) {
        for (Recorder r : recorders) {
            List<String> d = r.delivered();
            Set<String> expected = new HashSet<>();
            sent.forEach((m, g) -> {
                if (g.intersects(r.subscribed)) {
                    expected.add(m);
                }
            });
            assertThat(new HashSet<>(d)).as(r.name + ": delivers exactly the messages of its groups").isEqualTo(expected);
            assertThat(d).as(r.name + ": at most once").doesNotHaveDuplicates();
            List<GroupSet> gs = r.groups();
            for (int i = 0; i < d.size(); i++) {
                assertThat(gs.get(i)).as(r.name + ": the group set of " + d.get(i)).isEqualTo(sent.get(d.get(i)));
            }
        }
        for (int a = 0; a < recorders.size(); a++) {
            for (int b = a + 1; b < recorders.size(); b++) {
                List<String> da = recorders.get(a).delivered();
                Set<String> inB = new HashSet<>(recorders.get(b).delivered());
                List<String> commonA = da.stream().filter(inB::contains).toList();
                Set<String> inA = new HashSet<>(da);
                List<String> commonB = recorders.get(b).delivered().stream().filter(inA::contains).toList();
                assertThat(commonB).as(recorders.get(a).name + " and " + recorders.get(b).name + " order their common messages alike")
                        .isEqualTo(commonA);
            }
        }
        assertAcyclic(recorders);
    }

    /** Kahn's algorithm over the union of every subscription's consecutive-delivery edges. */
    private static void assertAcyclic(List<Recorder> recorders) {
        Map<String, Set<String>> edges = new HashMap<>();
        Map<String, Integer> indegree = new HashMap<>();
        for (Recorder r : recorders) {
            List<String> d = r.delivered();
            for (int i = 0; i < d.size(); i++) {
                indegree.putIfAbsent(d.get(i), 0);
                edges.putIfAbsent(d.get(i), new HashSet<>());
                if (i > 0 && edges.get(d.get(i - 1)).add(d.get(i))) {
                    indegree.merge(d.get(i), 1, Integer::sum);
                }
            }
        }
        List<String> ready = new ArrayList<>();
        indegree.forEach((m, n) -> {
            if (n == 0) {
                ready.add(m);
            }
        });
        int sorted = 0;
        while (!ready.isEmpty()) {
            String m = ready.remove(ready.size() - 1);
            sorted++;
            for (String next : edges.get(m)) {
                if (indegree.merge(next, -1, Integer::sum) == 0) {
                    ready.add(next);
                }
            }
        }
        assertThat(sorted).as("the union of every subscription's delivery order is acyclic").isEqualTo(indegree.size());
    }

    // ---------------------------------------------------------------- tests

    @Test
    void oneGroupIsOneTotalOrderOverMessagesFromEveryProcess() throws InterruptedException {
        List<AtomicMulticast> c = cluster(3, G012);
        GroupSet g0 = GroupSet.of(0);
        List<Recorder> subs = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            subs.add(subscribe(c.get(p), "p" + p + "{0}", g0));
        }
        Map<String, GroupSet> sent = new LinkedHashMap<>();
        for (int i = 0; i < 100; i++) {
            for (int p = 0; p < 3; p++) {
                String m = "p" + p + "-" + i;
                send(c.get(p), g0, m);
                sent.put(m, g0);
            }
        }
        for (Recorder r : subs) {
            r.awaitCount(sent.size());
        }
        checkDeliveries(subs, sent);
        for (Recorder r : subs) {
            assertThat(r.delivered()).as("one total order").isEqualTo(subs.get(0).delivered());
            List<MulticastPosition> pos = r.positions();
            for (int i = 1; i < pos.size(); i++) {
                assertThat(pos.get(i).next(0)).as("group 0's position grows").isGreaterThan(pos.get(i - 1).next(0));
            }
        }
    }

    @Test
    void overlappingSubscriptionsDeliverEveryMessageOnceInAnAcyclicOrder() throws InterruptedException {
        List<AtomicMulticast> c = cluster(3, G012);
        List<Recorder> subs = List.of(
                subscribe(c.get(0), "p0{0,1}", GroupSet.of(0, 1)),
                subscribe(c.get(0), "p0{2}", GroupSet.of(2)),
                subscribe(c.get(1), "p1{1,2}", GroupSet.of(1, 2)),
                subscribe(c.get(1), "p1{0}", GroupSet.of(0)),
                subscribe(c.get(2), "p2{0,1,2}", G012),
                subscribe(c.get(2), "p2{0,2}", GroupSet.of(0, 2)));
        Random random = new Random(11);
        Map<String, GroupSet> sent = new LinkedHashMap<>();
        for (int i = 0; i < 300; i++) {
            int p = i % 3;
            long bits = 1 + random.nextInt(7); // a non-empty subset of {0, 1, 2}
            GroupSet g = GroupSet.ofBits(bits);
            String m = "m" + i + "@p" + p + g;
            send(c.get(p), g, m);
            sent.put(m, g);
        }
        for (Recorder r : subs) {
            r.awaitCount(expectedCount(r, sent));
        }
        checkDeliveries(subs, sent);
    }

    @Test
    void aMessageToSeveralGroupsReachesEverySubscriberOfAnyOfThemExactlyOnce() throws InterruptedException {
        List<AtomicMulticast> c = cluster(3, G012);
        Recorder only0 = subscribe(c.get(0), "p0{0}", GroupSet.of(0));
        Recorder only1 = subscribe(c.get(1), "p1{1}", GroupSet.of(1));
        Recorder only2 = subscribe(c.get(2), "p2{2}", GroupSet.of(2));
        Recorder both = subscribe(c.get(0), "p0{1,2}", GroupSet.of(1, 2));
        GroupSet g01 = GroupSet.of(0, 1);
        Map<String, GroupSet> sent = new LinkedHashMap<>();
        for (int i = 0; i < 30; i++) {
            String m = "x" + i;
            send(c.get(i % 3), g01, m);
            sent.put(m, g01);
        }
        send(c.get(1), G012, "marker");
        sent.put("marker", G012);
        List<Recorder> all = List.of(only0, only1, only2, both);
        for (Recorder r : all) {
            r.awaitCount(expectedCount(r, sent));
        }
        checkDeliveries(all, sent);
        assertThat(only2.delivered()).as("group 2 got only the message addressed to it").containsExactly("marker");
        assertThat(only0.delivered()).hasSize(31);
        assertThat(both.delivered()).as("reached through group 1").hasSize(31);
    }

    @Test
    void severalSubscriptionsInOneProcessEachDeliverTheirOwnGroups() throws InterruptedException {
        List<AtomicMulticast> c = cluster(3, G012);
        // P-SMR's shape: workers on {g_i, g_all} in one process (g_all = 2), plus a full one.
        List<Recorder> subs = List.of(
                subscribe(c.get(1), "w0{0,2}", GroupSet.of(0, 2)),
                subscribe(c.get(1), "w1{1,2}", GroupSet.of(1, 2)),
                subscribe(c.get(1), "all", G012),
                subscribe(c.get(1), "w0-again", GroupSet.of(0, 2)));
        List<GroupSet> targets = List.of(GroupSet.of(0), GroupSet.of(1), GroupSet.of(2), GroupSet.of(0, 1));
        Map<String, GroupSet> sent = new LinkedHashMap<>();
        for (int i = 0; i < 120; i++) {
            GroupSet g = targets.get(i % targets.size());
            String m = "c" + i + g;
            send(c.get(i % 3), g, m);
            sent.put(m, g);
        }
        for (Recorder r : subs) {
            r.awaitCount(expectedCount(r, sent));
        }
        checkDeliveries(subs, sent);
        assertThat(subs.get(3).delivered()).as("same groups, same sequence").isEqualTo(subs.get(0).delivered());
    }

    @Test
    void aNewSubscriptionFromAPositionContinuesExactlyAfterIt() throws InterruptedException {
        List<AtomicMulticast> c = cluster(3, G012);
        GroupSet g01 = GroupSet.of(0, 1);
        int held = 40;
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Recorder a = new Recorder("a", g01);
        a.subscription = c.get(0).subscribe(g01, (g, m, after) -> {
            a.record(g, m, after);
            if (a.delivered().size() == held) {
                reached.countDown();
                release.await(); // the subscriber stops here, e.g. to take a snapshot
            }
        });
        List<GroupSet> targets = List.of(GroupSet.of(0), GroupSet.of(1), g01);
        Map<String, GroupSet> sent = new LinkedHashMap<>();
        for (int i = 0; i < 100; i++) {
            GroupSet g = targets.get(i % targets.size());
            String m = "r" + i + g;
            send(c.get(i % 3), g, m);
            sent.put(m, g);
        }
        assertThat(reached.await(TIMEOUT_S, TimeUnit.SECONDS)).isTrue();
        MulticastPosition snapshot = a.positions().get(held - 1);
        Recorder b = new Recorder("b", g01);
        b.subscription = c.get(0).subscribe(g01, snapshot, b::record);
        release.countDown();
        a.awaitCount(100);
        b.awaitCount(100 - held);
        assertThat(b.delivered()).as("continues exactly after the position: no gap, no duplicate")
                .isEqualTo(a.delivered().subList(held, 100));
        assertThat(b.positions()).isEqualTo(a.positions().subList(held, 100));
        checkDeliveries(List.of(a), sent);
    }

    @Test
    void aSnapshotInstalledMovesARunningSubscriptionToItsPosition() throws InterruptedException {
        List<AtomicMulticast> c = cluster(3, G012);
        GroupSet g01 = GroupSet.of(0, 1);
        Recorder ahead = subscribe(c.get(0), "ahead", g01);
        int jumpAt = 20;
        int target = 60;
        Recorder lagging = new Recorder("lagging", g01);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        lagging.subscription = c.get(1).subscribe(g01, (g, m, after) -> {
            lagging.record(g, m, after);
            if (lagging.delivered().size() == jumpAt) {
                try {
                    // A snapshot from a peer: install the state the other subscriber had at `target`.
                    ahead.awaitCount(target);
                    lagging.subscription.snapshotInstalled(ahead.positions().get(target - 1));
                } catch (Throwable t) {
                    failure.set(t);
                }
            }
        });
        List<GroupSet> targets = List.of(GroupSet.of(0), g01, GroupSet.of(1));
        for (int i = 0; i < 100; i++) {
            GroupSet g = targets.get(i % targets.size());
            send(c.get(i % 3), g, "s" + i + g);
        }
        ahead.awaitCount(100);
        lagging.awaitCount(jumpAt + 100 - target);
        assertThat(failure.get()).isNull();
        List<String> expected = new ArrayList<>(ahead.delivered().subList(0, jumpAt));
        expected.addAll(ahead.delivered().subList(target, 100));
        assertThat(lagging.delivered()).as("continues exactly at the installed position").isEqualTo(expected);
    }

    @Test
    void backPressureRefusesWithoutLosingAnAcceptedMessage() throws InterruptedException {
        List<AtomicMulticast> c = cluster(3, G012);
        GroupSet g01 = GroupSet.of(0, 1);
        CountDownLatch gate = new CountDownLatch(1);
        List<Recorder> subs = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            Recorder r = new Recorder("p" + p, g01);
            r.subscription = c.get(p).subscribe(g01, (g, m, after) -> {
                gate.await(); // a slow executor
                r.record(g, m, after);
            });
            subs.add(r);
        }
        List<GroupSet> targets = List.of(GroupSet.of(0), GroupSet.of(1), g01);
        Map<String, GroupSet> accepted = new LinkedHashMap<>();
        send(c.get(0), g01, "first");
        accepted.put("first", g01);
        int refused = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        for (int i = 0; refused < 100; i++) {
            assertThat(System.nanoTime()).as("refusals while every listener is blocked").isLessThan(deadline);
            assertThat(accepted.size()).as("the bounded buffers must fill and refuse").isLessThan(1_000_000);
            GroupSet g = targets.get(i % targets.size());
            String m = "b" + i + g;
            if (c.get(i % 3).multicast(g, bytes(m))) {
                accepted.put(m, g);
            } else {
                refused++;
            }
        }
        gate.countDown();
        send(c.get(2), g01, "last");
        accepted.put("last", g01);
        for (Recorder r : subs) {
            r.awaitCount(accepted.size());
        }
        checkDeliveries(subs, accepted);
    }

    @Test
    void closeStopsDeliveryAndLeavesNoThread() throws InterruptedException {
        Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
        List<AtomicMulticast> c = cluster(3, G012);
        GroupSet g0 = GroupSet.of(0);
        Recorder closing = subscribe(c.get(0), "closing", g0);
        Recorder staying = subscribe(c.get(1), "staying", g0);
        for (int i = 0; i < 10; i++) {
            send(c.get(i % 3), g0, "before" + i);
        }
        closing.awaitCount(10);
        staying.awaitCount(10);
        closing.subscription.close();
        closing.subscription.close();
        for (int i = 0; i < 10; i++) {
            send(c.get(i % 3), g0, "after" + i);
        }
        staying.awaitCount(20);
        assertThat(closing.delivered()).as("nothing after close").hasSize(10);

        assertThatThrownBy(() -> c.get(0).multicast(GroupSet.of(5), bytes("x"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.get(0).subscribe(GroupSet.of(0, 7), (g, m, a) -> { }))
                .isInstanceOf(IllegalArgumentException.class);
        for (AtomicMulticast m : c) {
            m.close();
            m.close();
        }
        assertThatThrownBy(() -> c.get(0).multicast(g0, bytes("x"))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> c.get(0).subscribe(g0, (g, m, a) -> { })).isInstanceOf(IllegalStateException.class);
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (!before.contains(t) && !t.getName().startsWith("ForkJoinPool")) {
                t.join(TimeUnit.SECONDS.toMillis(TIMEOUT_S));
                assertThat(t.isAlive()).as("thread " + t.getName() + " ended").isFalse();
            }
        }
    }
}
