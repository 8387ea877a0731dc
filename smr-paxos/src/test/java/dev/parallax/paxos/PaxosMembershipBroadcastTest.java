package dev.parallax.paxos;

import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.spi.MembershipAdmin;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.LocalNetwork;
import dev.parallax.core.time.SystemClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

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
 * Membership changes through {@link PaxosBroadcast}'s {@link MembershipAdmin}, with real stage
 * threads on an in-process network: a fresh replica joins as a learner and receives every
 * decision, replaces a voter, and the group goes on deciding without the replaced one; leadership
 * moves by transfer; refused requests say why.
 */
class PaxosMembershipBroadcastTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private final LocalNetwork<PaxosMessage> network = new LocalNetwork<>(5);
    private final List<PaxosBroadcast> replicas = new ArrayList<>();
    private final List<List<String>> delivered = new ArrayList<>();

    @AfterEach
    void close() {
        replicas.forEach(r -> {
            if (r != null) {
                r.close();
            }
        });
    }

    private PaxosBroadcast start(int id) {
        PaxosConfig config = PaxosConfig.builder(3).heartbeat(Duration.ofMillis(50)).suspect(Duration.ofSeconds(1))
                .retransmit(Duration.ofMillis(50)).catchUp(Duration.ofMillis(30)).build();
        PaxosBroadcast b = PaxosBroadcast.builder().config(config).self(id).transport(network.transport(id))
                .log(InMemoryDurableLog.create()).clock(SystemClock.INSTANCE).build();
        List<String> mine = Collections.synchronizedList(new ArrayList<>());
        while (delivered.size() <= id) {
            delivered.add(null);
            replicas.add(null);
        }
        delivered.set(id, mine);
        replicas.set(id, b);
        b.start((seq, value) -> mine.add(StandardCharsets.UTF_8.decode(value).toString()));
        return b;
    }

    private void propose(PaxosBroadcast leader, String v) throws InterruptedException {
        Await.until("proposal " + v + " taken", WAIT,
                () -> leader.propose(ByteBuffer.wrap(v.getBytes(StandardCharsets.UTF_8))));
    }

    private static String get(CompletableFuture<String> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    @Test
    void aFreshReplicaJoinsAsALearnerReplacesAVoterAndTheGroupGoesOnWithoutTheOldOne() throws Exception {
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        PaxosBroadcast leader = replicas.get(0);
        Await.until("replica 0 leads", WAIT, () -> leader.leaderHint() == 0);
        propose(leader, "a");
        propose(leader, "b");
        Await.untilEquals(WAIT, () -> List.copyOf(delivered.get(0)), List.of("a", "b"), () -> "decided");
        PaxosBroadcast fresh = start(3);
        assertThat(get(leader.addLearner(3, "127.0.0.1:7003"))).contains("learners=[3]");
        Await.untilEquals(WAIT, () -> List.copyOf(delivered.get(3)), List.of("a", "b"), () -> "the learner caught up");
        // The leader refuses until the learner's acknowledgements show it caught up (as an operator would, retry).
        String members = Await.success(WAIT, () -> get(leader.replace(2, 3, "")),
                e -> String.valueOf(e.getMessage()).contains("has not caught up"), () -> "replace 2 by 3");
        assertThat(members).contains("voters=[0,1,3]").contains("learners=[]");
        replicas.get(2).close();
        replicas.set(2, null);
        propose(leader, "c");
        Await.untilEquals(WAIT, () -> List.copyOf(delivered.get(3)), List.of("a", "b", "c"),
                () -> "decided by 0, 1 and 3 without 2");
        Await.until("every live member reports the new membership", WAIT,
                () -> fresh.members().contains("voters=[0,1,3]") && replicas.get(1).members().contains("voters=[0,1,3]"));
        assertThat(delivered.get(0)).containsExactly("a", "b", "c");

        assertThat(get(leader.transferLeadership(3))).contains("replica 3 leads");
        Await.until("replica 3 leads", WAIT, () -> fresh.leaderHint() == 3);
        propose(fresh, "d");
        Await.untilEquals(WAIT, () -> List.copyOf(delivered.get(1)), List.of("a", "b", "c", "d"),
                () -> "the new leader decides");
    }

    @Test
    void requestsThatCannotGoNowAreRefusedWithTheReason() throws Exception {
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        PaxosBroadcast leader = replicas.get(0);
        Await.until("replica 0 leads", WAIT, () -> leader.leaderHint() == 0);
        propose(leader, "a");
        Await.untilEquals(WAIT, () -> List.copyOf(delivered.get(0)), List.of("a"), () -> "decided");
        assertRefused(replicas.get(1).remove(2), "does not lead");
        assertRefused(leader.promote(2), "is not a learner");
        assertRefused(leader.remove(7), "is not a member");
        assertRefused(leader.addLearner(1, "127.0.0.1:7001"), "already a member");
        assertRefused(leader.addLearner(4, "no-port"), "is not host:port");
        assertRefused(leader.replace(2, 4, "127.0.0.1:7004"), "must join as a learner");
        assertRefused(leader.transferLeadership(9), "is not a voter");
        // One change at a time: a second request while the first is not in effect yet is refused.
        CompletableFuture<String> first = leader.addLearner(3, "127.0.0.1:7003");
        CompletableFuture<String> second = leader.addLearner(4, "127.0.0.1:7004");
        assertThat(get(first)).contains("learners=[3]");
        assertRefused(second, "one change at a time");
    }

    private static void assertRefused(CompletableFuture<String> f, String reason) {
        assertThatThrownBy(() -> get(f)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(MembershipAdmin.MembershipChangeRefused.class).hasMessageContaining(reason);
    }
}
