package dev.parallax.core.testkit;

import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract every {@link AtomicBroadcast} must pass, with real threads: validity, agreement on
 * one total order, integrity (no duplicates), delivery despite one isolated replica, and the
 * lifecycle rules. Subclasses build a cluster of {@code n} started-but-not-listening broadcasts
 * over a {@link LocalNetwork}.
 */
public abstract class AtomicBroadcastContract {
    private static final long TIMEOUT_S = 30;
    private final List<AtomicBroadcast> cluster = new ArrayList<>();

    /** Creates member {@code id} of an {@code n}-member cluster on {@code network}; not started. */
    protected abstract AtomicBroadcast create(int id, int n, LocalNetwork<?> network);

    /** A network the implementation's messages can travel on. */
    protected abstract LocalNetwork<?> network(int n);

    @AfterEach
    final void closeAll() {
        cluster.forEach(AtomicBroadcast::close);
    }

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return new String(a, StandardCharsets.UTF_8);
    }

    /** Per member: the delivered values in order, and a latch counting down per delivery. */
    private record Member(AtomicBroadcast broadcast, List<String> delivered, List<Long> sequences, CountDownLatch done) {
    }

    private List<Member> startCluster(int n, LocalNetwork<?> net, int expected) {
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            AtomicBroadcast b = create(i, n, net);
            cluster.add(b);
            List<String> delivered = Collections.synchronizedList(new ArrayList<>());
            List<Long> sequences = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch done = new CountDownLatch(expected);
            b.start((seq, value) -> {
                sequences.add(seq);
                delivered.add(text(value));
                done.countDown();
            });
            members.add(new Member(b, delivered, sequences, done));
        }
        return members;
    }

    /** Proposes at whichever member leads, retrying while back-pressure or leadership refuse. */
    private static void proposeAll(List<Member> members, List<String> values) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        int next = 0;
        int target = 0;
        while (next < values.size()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("could not propose " + values.get(next));
            }
            int hint = members.get(target).broadcast().leaderHint();
            if (hint >= 0) {
                target = hint;
            }
            if (members.get(target).broadcast().propose(bytes(values.get(next)))) {
                next++;
            } else {
                Thread.onSpinWait();
                Thread.yield();
            }
        }
    }

    @Test
    void everyMemberDeliversEveryValueOnceInOneOrder() throws InterruptedException {
        int n = 3;
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            values.add("v" + i);
        }
        List<Member> members = startCluster(n, network(n), values.size());
        proposeAll(members, values);
        for (Member m : members) {
            assertThat(m.done().await(TIMEOUT_S, TimeUnit.SECONDS)).as("all delivered").isTrue();
        }
        List<String> reference = new ArrayList<>(members.get(0).delivered());
        assertThat(new HashSet<>(reference)).as("validity and integrity").isEqualTo(new HashSet<>(values));
        assertThat(reference).hasSize(values.size());
        for (Member m : members) {
            assertThat(m.delivered()).as("agreement on the total order").isEqualTo(reference);
            List<Long> seqs = new ArrayList<>(m.sequences());
            for (int i = 1; i < seqs.size(); i++) {
                assertThat(seqs.get(i)).as("sequences increase").isGreaterThan(seqs.get(i - 1));
            }
        }
    }

    @Test
    void aMajorityKeepsDeliveringWhileOneMemberIsCutOff() throws InterruptedException {
        int n = 3;
        LocalNetwork<?> net = network(n);
        List<Member> members = startCluster(n, net, 201); // the probe and 200 values
        int leader = awaitLeader(members);
        int isolated = (leader + 1) % n;
        net.isolate(isolated);
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            values.add("w" + i);
        }
        proposeAll(members, values);
        for (int i = 0; i < n; i++) {
            if (i != isolated) {
                assertThat(members.get(i).done().await(TIMEOUT_S, TimeUnit.SECONDS)).isTrue();
            }
        }
        net.heal();
        assertThat(members.get(isolated).done().await(TIMEOUT_S, TimeUnit.SECONDS)).as("catches up after heal").isTrue();
        assertThat(members.get(isolated).delivered()).isEqualTo(members.get(leader).delivered());
    }

    private static int awaitLeader(List<Member> members) throws InterruptedException {
        return Await.value(Duration.ofSeconds(TIMEOUT_S), () -> {
            int hint = members.get(0).broadcast().leaderHint();
            return hint >= 0 && members.get(hint).broadcast().propose(bytes("probe")) ? hint : -1;
        }, leader -> leader >= 0, () -> "a leader that accepts a proposal");
    }

    @Test
    void lifecycleRulesAreEnforced() {
        LocalNetwork<?> net = network(1);
        AtomicBroadcast b = create(0, 1, net);
        cluster.add(b);
        assertThatThrownBy(() -> b.propose(bytes("x"))).isInstanceOf(IllegalStateException.class);
        b.start((s, v) -> { });
        assertThatThrownBy(() -> b.start((s, v) -> { })).isInstanceOf(IllegalStateException.class);
        b.close();
        b.close();
        assertThatThrownBy(() -> b.propose(bytes("x"))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aSingleMemberClusterDeliversItsOwnProposals() throws InterruptedException {
        List<Member> members = startCluster(1, network(1), 50);
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            values.add("s" + i);
        }
        proposeAll(members, values);
        assertThat(members.get(0).done().await(TIMEOUT_S, TimeUnit.SECONDS)).isTrue();
        Set<String> got = new HashSet<>(members.get(0).delivered());
        assertThat(got).containsAll(values);
    }
}
