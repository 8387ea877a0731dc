package dev.parallax.paxos;

import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.spi.MembershipAdmin;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.LocalNetwork;
import dev.parallax.core.time.SystemClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static dev.parallax.paxos.BroadcastGroup.WAIT;
import static dev.parallax.paxos.BroadcastGroup.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Membership changes through {@link PaxosBroadcast}'s {@link MembershipAdmin}, with real stage
 * threads on an in-process network: a fresh replica joins as a learner and receives every
 * decision, replaces a voter, and the group goes on deciding without the replaced one; leadership
 * moves by transfer; refused requests say why.
 */
class PaxosMembershipBroadcastTest {
    private final LocalNetwork<PaxosMessage> network = new LocalNetwork<>(5);
    private final BroadcastGroup<PaxosBroadcast> group = new BroadcastGroup<>(id -> PaxosBroadcast.builder()
            .config(PaxosConfig.builder(3).heartbeat(Duration.ofMillis(50)).suspect(Duration.ofSeconds(1))
                    .retransmit(Duration.ofMillis(50)).catchUp(Duration.ofMillis(30)).build())
            .self(id).transport(network.transport(id)).log(InMemoryDurableLog.create()).clock(SystemClock.INSTANCE).build());

    @AfterEach
    void close() {
        group.close();
    }

    private PaxosBroadcast startedWithLeaderZero() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            group.start(i);
        }
        PaxosBroadcast leader = group.replica(0);
        Await.until("replica 0 leads", WAIT, () -> leader.leaderHint() == 0);
        return leader;
    }

    @Test
    void aFreshReplicaJoinsAsALearnerReplacesAVoterAndTheGroupGoesOnWithoutTheOldOne() throws Exception {
        PaxosBroadcast leader = startedWithLeaderZero();
        group.propose(leader, "a");
        group.propose(leader, "b");
        group.await(0, List.of("a", "b"), "decided");
        PaxosBroadcast fresh = group.start(3);
        assertThat(get(leader.addLearner(3, "127.0.0.1:7003"))).contains("learners=[3]");
        group.await(3, List.of("a", "b"), "the learner caught up");
        // The leader refuses until the learner's acknowledgements show it caught up (as an operator would, retry).
        String members = Await.success(WAIT, () -> get(leader.replace(2, 3, "")),
                e -> String.valueOf(e.getMessage()).contains("has not caught up"), () -> "replace 2 by 3");
        assertThat(members).contains("voters=[0,1,3]").contains("learners=[]");
        group.stop(2);
        group.propose(leader, "c");
        group.await(3, List.of("a", "b", "c"), "decided by 0, 1 and 3 without 2");
        group.await(0, List.of("a", "b", "c"), "the leader executes it too");
        Await.until("every live member reports the new membership", WAIT,
                () -> fresh.members().contains("voters=[0,1,3]") && group.replica(1).members().contains("voters=[0,1,3]"));

        assertThat(get(leader.transferLeadership(3))).contains("replica 3 leads");
        Await.until("replica 3 leads", WAIT, () -> fresh.leaderHint() == 3);
        group.propose(fresh, "d");
        group.await(1, List.of("a", "b", "c", "d"), "the new leader decides");
    }

    @Test
    void requestsThatCannotGoNowAreRefusedWithTheReason() throws Exception {
        PaxosBroadcast leader = startedWithLeaderZero();
        group.propose(leader, "a");
        group.await(0, List.of("a"), "decided");
        assertRefused(group.replica(1).remove(2), "does not lead");
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
