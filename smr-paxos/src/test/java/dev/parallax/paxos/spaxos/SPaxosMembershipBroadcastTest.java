package dev.parallax.paxos.spaxos;

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
 * Membership changes through {@link SPaxosBroadcast}'s {@link MembershipAdmin}, with real stage
 * threads on an in-process network carrying both layers: a fresh replica joins as a learner and
 * executes every decided batch (dissemination forwards and fetches bodies for it, rule M1),
 * replaces a voter, and the group goes on without the replaced one (stability counts the new
 * voters, M2); the new voter takes clients and, by transfer, the ordering leadership.
 */
class SPaxosMembershipBroadcastTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private final LocalNetwork<SPaxosWire> network = new LocalNetwork<>(5);
    private final List<SPaxosBroadcast> replicas = new ArrayList<>();
    private final List<List<String>> delivered = new ArrayList<>();

    @AfterEach
    void close() {
        replicas.forEach(r -> {
            if (r != null) {
                r.close();
            }
        });
    }

    private SPaxosBroadcast start(int id) {
        SPaxosBroadcast b = SPaxosBroadcast.builder().config(SPaxosBroadcastTest.config(3)).self(id)
                .transport(network.transport(id)).log(InMemoryDurableLog.create()).clock(SystemClock.INSTANCE).build();
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

    private void propose(SPaxosBroadcast at, String v) throws InterruptedException {
        Await.until("proposal " + v + " taken", WAIT, () -> at.propose(ByteBuffer.wrap(v.getBytes(StandardCharsets.UTF_8))));
    }

    private void await(int replica, List<String> expected, String what) throws InterruptedException {
        Await.untilEquals(WAIT, () -> List.copyOf(delivered.get(replica)), expected, () -> what);
    }

    private static String get(CompletableFuture<String> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    @Test
    void aFreshReplicaJoinsAsALearnerReceivesBodiesReplacesAVoterAndTheGroupGoesOn() throws Exception {
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        SPaxosBroadcast leader = replicas.get(0);
        Await.until("replica 0 leads", WAIT, () -> leader.leaderHint() == 0);
        propose(replicas.get(1), "a");
        await(0, List.of("a"), "a decided");
        propose(replicas.get(2), "b");
        await(0, List.of("a", "b"), "b decided");

        SPaxosBroadcast fresh = start(3);
        assertThat(get(leader.addLearner(3, "127.0.0.1:7003"))).contains("learners=[3]");
        await(3, List.of("a", "b"), "the learner executed the batches decided before it joined (bodies fetched)");
        propose(replicas.get(1), "c");
        await(3, List.of("a", "b", "c"), "the learner receives a batch disseminated after it joined");

        String members = Await.success(WAIT, () -> get(leader.replace(2, 3, "")),
                e -> String.valueOf(e.getMessage()).contains("has not caught up"), () -> "replace 2 by 3");
        assertThat(members).contains("voters=[0,1,3]").contains("learners=[]");
        replicas.get(2).close();
        replicas.set(2, null);
        Await.until("every live member has the new membership in effect", WAIT,
                () -> fresh.members().contains("voters=[0,1,3]") && replicas.get(1).members().contains("voters=[0,1,3]")
                        && leader.members().contains("voters=[0,1,3]"));
        propose(replicas.get(1), "d");
        await(3, List.of("a", "b", "c", "d"), "stable at f+1 of voters {0,1,3} and decided without 2");
        propose(fresh, "e");
        await(0, List.of("a", "b", "c", "d", "e"), "the new voter takes clients");

        assertThat(get(leader.transferLeadership(3))).contains("replica 3 leads");
        Await.until("replica 3 leads", WAIT, () -> fresh.leaderHint() == 3);
        propose(replicas.get(0), "f");
        await(1, List.of("a", "b", "c", "d", "e", "f"), "the new leader orders");
        await(3, List.of("a", "b", "c", "d", "e", "f"), "the new leader executes it too");
    }

    @Test
    void requestsThatCannotGoNowAreRefusedWithTheReason() throws Exception {
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        SPaxosBroadcast leader = replicas.get(0);
        Await.until("replica 0 leads", WAIT, () -> leader.leaderHint() == 0);
        propose(replicas.get(1), "a");
        await(0, List.of("a"), "decided: replica 0 leads a started view");
        assertRefused(replicas.get(1).remove(2), "does not lead");
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
