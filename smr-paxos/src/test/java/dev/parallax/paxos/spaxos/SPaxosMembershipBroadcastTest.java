package dev.parallax.paxos.spaxos;

import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.spi.MembershipAdmin;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.LocalNetwork;
import dev.parallax.core.time.SystemClock;
import dev.parallax.paxos.BroadcastGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static dev.parallax.paxos.BroadcastGroup.WAIT;
import static dev.parallax.paxos.BroadcastGroup.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Membership changes through {@link SPaxosBroadcast}'s {@link MembershipAdmin}, with real stage
 * threads on an in-process network carrying both layers: a fresh replica joins as a learner and
 * executes every decided batch (dissemination forwards and fetches bodies for it, rule M1),
 * replaces a voter, and the group goes on without the replaced one (stability counts the new
 * voters, M2); the new voter takes clients and, by transfer, the ordering leadership.
 */
class SPaxosMembershipBroadcastTest {
    private final LocalNetwork<SPaxosWire> network = new LocalNetwork<>(5);
    private final BroadcastGroup<SPaxosBroadcast> group = new BroadcastGroup<>(id -> SPaxosBroadcast.builder()
            .config(SPaxosBroadcastTest.config(3)).self(id).transport(network.transport(id))
            .log(InMemoryDurableLog.create()).clock(SystemClock.INSTANCE).build());
    @AfterEach
    void close() {
        group.close();
    }

    private SPaxosBroadcast start(int id) {
        return group.start(id);
    }

    private void propose(SPaxosBroadcast at, String v) throws InterruptedException {
        group.propose(at, v);
    }

    private void await(int replica, List<String> expected, String what) throws InterruptedException {
        group.await(replica, expected, what);
    }

    @Test
    void aFreshReplicaJoinsAsALearnerReceivesBodiesReplacesAVoterAndTheGroupGoesOn() throws Exception {
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        SPaxosBroadcast leader = group.replica(0);
        Await.until("replica 0 leads", WAIT, () -> leader.leaderHint() == 0);
        propose(group.replica(1), "a");
        await(0, List.of("a"), "a decided");
        propose(group.replica(2), "b");
        await(0, List.of("a", "b"), "b decided");

        SPaxosBroadcast fresh = start(3);
        assertThat(get(leader.addLearner(3, "127.0.0.1:7003"))).contains("learners=[3]");
        await(3, List.of("a", "b"), "the learner executed the batches decided before it joined (bodies fetched)");
        propose(group.replica(1), "c");
        await(3, List.of("a", "b", "c"), "the learner receives a batch disseminated after it joined");

        String members = Await.success(WAIT, () -> get(leader.replace(2, 3, "")),
                e -> String.valueOf(e.getMessage()).contains("has not caught up"), () -> "replace 2 by 3");
        assertThat(members).contains("voters=[0,1,3]").contains("learners=[]");
        group.stop(2);
        Await.until("every live member has the new membership in effect", WAIT,
                () -> fresh.members().contains("voters=[0,1,3]") && group.replica(1).members().contains("voters=[0,1,3]")
                        && leader.members().contains("voters=[0,1,3]"));
        propose(group.replica(1), "d");
        await(3, List.of("a", "b", "c", "d"), "stable at f+1 of voters {0,1,3} and decided without 2");
        propose(fresh, "e");
        await(0, List.of("a", "b", "c", "d", "e"), "the new voter takes clients");

        assertThat(get(leader.transferLeadership(3))).contains("replica 3 leads");
        Await.until("replica 3 leads", WAIT, () -> fresh.leaderHint() == 3);
        propose(group.replica(0), "f");
        await(1, List.of("a", "b", "c", "d", "e", "f"), "the new leader orders");
        await(3, List.of("a", "b", "c", "d", "e", "f"), "the new leader executes it too");
    }

    @Test
    void requestsThatCannotGoNowAreRefusedWithTheReason() throws Exception {
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        SPaxosBroadcast leader = group.replica(0);
        Await.until("replica 0 leads", WAIT, () -> leader.leaderHint() == 0);
        propose(group.replica(1), "a");
        await(0, List.of("a"), "decided: replica 0 leads a started view");
        assertRefused(group.replica(1).remove(2), "does not lead");
        assertRefused(leader.promote(2), "is not a learner");
        assertRefused(leader.replace(2, 4, "127.0.0.1:7004"), "must join as a learner");
        assertRefused(leader.transferLeadership(9), "is not a voter");
        assertThat(leader.members()).contains("voters=[0,1,2]");
    }

    private static void assertRefused(CompletableFuture<String> f, String reason) {
        assertThatThrownBy(() -> get(f)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(MembershipAdmin.MembershipChangeRefused.class).hasMessageContaining(reason);
    }
}
