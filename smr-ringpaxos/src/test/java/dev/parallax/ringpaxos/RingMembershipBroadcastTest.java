package dev.parallax.ringpaxos;

import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.spi.MembershipAdmin;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.LocalNetwork;
import dev.parallax.core.time.SystemClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Membership changes through {@link RingPaxosBroadcast}'s {@link MembershipAdmin} ({@link RingGroup},
 * rules G1–G8), U-Ring and M-Ring, with real stage threads on an in-process network (whose
 * transports also multicast): a fresh replica joins as a learner and receives every decision,
 * replaces a voter, and the ring goes on deciding without the replaced one; the coordination is
 * handed to a named member and to the best one ({@link RingHandOver}); refused requests say why.
 */
class RingMembershipBroadcastTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private final LocalNetwork<RingWire> network = new LocalNetwork<>(5);
    private final List<RingPaxosBroadcast> replicas = new ArrayList<>(Collections.nCopies(5, null));
    private final List<List<String>> delivered = new ArrayList<>();

    private RingPaxosBroadcast start(int id, Ring.Kind kind) {
        RingConfig config = RingConfig.builder(3, kind).memberIds(5).heartbeat(Duration.ofMillis(20))
                .suspect(Duration.ofMillis(300)).retransmit(Duration.ofMillis(50)).catchUp(Duration.ofMillis(30))
                .restartHold(Duration.ofMillis(200)).build();
        RingPaxosBroadcast b = RingPaxosBroadcast.builder().config(config).self(id).transport(network.transport(id))
                .log(InMemoryDurableLog.create()).clock(SystemClock.INSTANCE).build();
        List<String> mine = Collections.synchronizedList(new ArrayList<>());
        while (delivered.size() <= id) {
            delivered.add(null);
        }
        delivered.set(id, mine);
        replicas.set(id, b);
        // In-process replicas share value buffers: read a duplicate.
        b.start((seq, value) -> mine.add(StandardCharsets.UTF_8.decode(value.duplicate()).toString()));
        return b;
    }

    @AfterEach
    void close() {
        replicas.forEach(r -> {
            if (r != null) {
                r.close();
            }
        });
    }

    private RingPaxosBroadcast startedWithCoordinatorZero(Ring.Kind kind) throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            start(i, kind);
        }
        RingPaxosBroadcast zero = replicas.get(0);
        Await.until("replica 0 coordinates", WAIT, () -> zero.leaderHint() == 0 && zero.members().contains("voters=[0,1,2]"));
        return zero;
    }

    private void propose(RingPaxosBroadcast at, String v) throws InterruptedException {
        Await.until("proposal " + v + " taken", WAIT, () -> at.propose(ByteBuffer.wrap(v.getBytes(StandardCharsets.UTF_8))));
    }

    private void await(int id, List<String> expected, String what) throws InterruptedException {
        Await.untilEquals(WAIT, () -> List.copyOf(delivered.get(id)), expected, () -> what);
    }

    private static String get(CompletableFuture<String> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    void aFreshReplicaJoinsAsALearnerReplacesAVoterAndTheRingGoesOnWithoutTheOldOne(Ring.Kind kind) throws Exception {
        RingPaxosBroadcast coordinator = startedWithCoordinatorZero(kind);
        propose(coordinator, "a");
        propose(replicas.get(1), "b");
        Await.until("a and b decided", WAIT, () -> delivered.get(0).size() == 2);
        List<String> first = List.copyOf(delivered.get(0));
        RingPaxosBroadcast fresh = start(3, kind);
        assertThat(get(coordinator.addLearner(3, "127.0.0.1:7003"))).contains("learners=[3]");
        await(3, first, "the learner caught up");
        // The coordinator refuses until the learner's reports show it caught up (as an operator would, retry).
        String members = Await.success(WAIT, () -> get(coordinator.replace(2, 3, "")),
                e -> String.valueOf(e.getMessage()).contains("has not caught up"), () -> "replace 2 by 3");
        assertThat(members).contains("voters=[0,1,3]").contains("learners=[]");
        Await.until("the replacement in effect at 3", WAIT, () -> fresh.members().contains("voters=[0,1,3]"));
        replicas.get(2).close();
        replicas.set(2, null);
        propose(fresh, "c");
        List<String> all = new ArrayList<>(first);
        all.add("c");
        await(3, all, "decided by 0, 1 and 3 without 2");
        await(0, all, "the coordinator delivers it too");
        Await.until("every live member reports the new members", WAIT,
                () -> replicas.get(1).members().contains("voters=[0,1,3]"));
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    void theCoordinationIsHandedToANamedMemberThenToTheBestOne(Ring.Kind kind) throws Exception {
        RingPaxosBroadcast coordinator = startedWithCoordinatorZero(kind);
        propose(coordinator, "a");
        await(2, List.of("a"), "decided");
        assertThat(get(coordinator.transferLeadership(2))).contains("replica 2 leads");
        Await.until("replica 2 coordinates", WAIT, () -> replicas.get(2).leaderHint() == 2
                && replicas.get(1).leaderHint() == 2);
        propose(replicas.get(1), "b");
        await(0, List.of("a", "b"), "decided under the new coordinator");
        assertThat(get(replicas.get(2).transferLeadership(-1))).containsAnyOf("replica 0 leads", "replica 1 leads");
        int next = replicas.get(2).leaderHint();
        Await.until("every replica follows " + next, WAIT,
                () -> replicas.stream().limit(3).allMatch(r -> r.leaderHint() == next));
        propose(replicas.get(2), "c");
        await(1, List.of("a", "b", "c"), "decided after the second transfer");
    }

    @ParameterizedTest
    @EnumSource(Ring.Kind.class)
    void requestsThatCannotGoNowAreRefusedWithTheReason(Ring.Kind kind) throws Exception {
        RingPaxosBroadcast coordinator = startedWithCoordinatorZero(kind);
        propose(coordinator, "a");
        await(0, List.of("a"), "decided");
        assertRefused(replicas.get(1).remove(2), "does not lead");
        assertRefused(coordinator.promote(2), "is not a learner");
        assertRefused(coordinator.remove(4), "is not a member");
        assertRefused(coordinator.addLearner(7, "127.0.0.1:7007"), "outside this ring's ids");
        assertRefused(coordinator.addLearner(4, "no-port"), "is not host:port");
        assertRefused(coordinator.replace(2, 4, "127.0.0.1:7004"), "must join as a learner");
        assertRefused(replicas.get(1).transferLeadership(2), "does not coordinate this ring");
        assertRefused(coordinator.transferLeadership(4), "member 4 is not a voter");
        // One change at a time: a second request while the first is not in effect yet is refused.
        CompletableFuture<String> firstChange = coordinator.addLearner(3, "127.0.0.1:7003");
        CompletableFuture<String> second = coordinator.addLearner(4, "127.0.0.1:7004");
        assertThat(get(firstChange)).contains("learners=[3]");
        assertRefused(second, "one change at a time");
    }

    private static void assertRefused(CompletableFuture<String> f, String reason) {
        assertThatThrownBy(() -> get(f)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(MembershipAdmin.MembershipChangeRefused.class).hasMessageContaining(reason);
    }
}
