package dev.parallax.paxos.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.spi.BroadcastMulticast;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Subscription;
import dev.parallax.core.stage.WaitStrategies;
import dev.parallax.core.testkit.LocalNetwork;
import dev.parallax.core.time.SystemClock;
import dev.parallax.paxos.PaxosBroadcast;
import dev.parallax.paxos.PaxosConfig;
import dev.parallax.paxos.PaxosMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A Multi-Paxos broadcast seen through the one-group multicast adapter. */
class BroadcastMulticastTest {
    private static final long TIMEOUT_S = 60;
    private static final GroupSet G0 = GroupSet.of(0);
    private final List<BroadcastMulticast> created = new ArrayList<>();

    @AfterEach
    void closeAll() {
        created.forEach(BroadcastMulticast::close);
    }

    private BroadcastMulticast member(int self, int n, LocalNetwork<PaxosMessage> net) {
        PaxosConfig config = PaxosConfig.builder(n).heartbeat(Duration.ofMillis(20)).suspect(Duration.ofMillis(400))
                .retransmit(Duration.ofMillis(50)).catchUp(Duration.ofMillis(30)).build();
        BroadcastMulticast m = new BroadcastMulticast(PaxosBroadcast.builder().config(config).self(self)
                .transport(net.transport(self)).log(InMemoryDurableLog.create()).clock(SystemClock.INSTANCE)
                .options(RuntimeOptions.builder().waitStrategy(WaitStrategies.park()).build()).build());
        created.add(m);
        return m;
    }

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Deliveries of one subscription. */
    private static final class Log {
        final List<String> messages = new ArrayList<>();
        final List<MulticastPosition> positions = new ArrayList<>();

        synchronized void add(GroupSet g, ByteBuffer m, MulticastPosition after) {
            assertThat(g).isEqualTo(G0);
            byte[] a = new byte[m.remaining()];
            m.get(a);
            messages.add(new String(a, StandardCharsets.UTF_8));
            positions.add(after);
            notifyAll();
        }

        synchronized void await(int n) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            while (messages.size() < n) {
                long left = deadline - System.nanoTime();
                assertThat(left).as("delivered " + messages.size() + " of " + n).isPositive();
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }

        synchronized List<String> messages() {
            return new ArrayList<>(messages);
        }

        synchronized List<MulticastPosition> positions() {
            return new ArrayList<>(positions);
        }
    }

    /** Multicasts at the leader the adapter points to, retrying while refused. */
    private static void send(List<BroadcastMulticast> members, String m) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        while (true) {
            int leader = members.get(0).leaderHint();
            if (leader >= 0 && members.get(leader).multicast(G0, bytes(m))) {
                return;
            }
            assertThat(System.nanoTime()).as("could not multicast " + m).isLessThan(deadline);
            Thread.yield();
        }
    }

    @Test
    void aBroadcastIsAOneGroupMulticastWithSeveralSubscriptionsPerProcess() throws InterruptedException {
        LocalNetwork<PaxosMessage> net = new LocalNetwork<>(3);
        List<BroadcastMulticast> members = List.of(member(0, 3, net), member(1, 3, net), member(2, 3, net));
        assertThat(members.get(0).groups()).isEqualTo(G0);
        assertThatThrownBy(() -> members.get(0).multicast(G0, bytes("early")))
                .as("the broadcast starts with the first subscription").isInstanceOf(IllegalStateException.class);
        List<Log> logs = new ArrayList<>();
        for (BroadcastMulticast m : members) {
            for (int s = 0; s < 2; s++) {
                Log log = new Log();
                m.subscribe(G0, log::add);
                logs.add(log);
            }
        }
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            send(members, "v" + i);
            sent.add("v" + i);
        }
        for (Log log : logs) {
            log.await(sent.size());
            assertThat(log.messages()).containsExactlyInAnyOrderElementsOf(sent).isEqualTo(logs.get(0).messages());
            List<MulticastPosition> p = log.positions();
            for (int i = 1; i < p.size(); i++) {
                assertThat(p.get(i).next(0)).isGreaterThan(p.get(i - 1).next(0));
            }
            assertThat(p).isEqualTo(logs.get(0).positions());
        }
    }

    @Test
    void aLaterSubscriptionStartsAtTheNextSequenceAndOlderPositionsAreRefused() throws InterruptedException {
        LocalNetwork<PaxosMessage> net = new LocalNetwork<>(1);
        BroadcastMulticast m = member(0, 1, net);
        List<BroadcastMulticast> one = List.of(m);
        Log first = new Log();
        m.subscribe(G0, first::add);
        for (int i = 0; i < 10; i++) {
            send(one, "a" + i);
        }
        first.await(10);
        MulticastPosition at = first.positions().get(9);
        assertThatThrownBy(() -> m.subscribe(G0, (g, b, p) -> { })).as("the adapter keeps no history")
                .isInstanceOf(IllegalArgumentException.class);
        Log second = new Log();
        Subscription s = m.subscribe(G0, at, second::add);
        assertThatThrownBy(() -> s.snapshotInstalled(MulticastPosition.START)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> m.subscribe(GroupSet.of(0, 1), (g, b, p) -> { })).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> m.multicast(GroupSet.of(1), bytes("x"))).isInstanceOf(IllegalArgumentException.class);
        for (int i = 0; i < 10; i++) {
            send(one, "b" + i);
        }
        first.await(20);
        second.await(10);
        assertThat(second.messages()).isEqualTo(first.messages().subList(10, 20));
        s.snapshotTaken(second.positions().get(9));
    }

    @Test
    void closingABlockedSubscriptionInterruptsItAndTheOthersGoOn() throws InterruptedException {
        LocalNetwork<PaxosMessage> net = new LocalNetwork<>(1);
        BroadcastMulticast m = member(0, 1, net);
        List<BroadcastMulticast> one = List.of(m);
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        Subscription stuck = m.subscribe(G0, (g, b, p) -> {
            blocked.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interrupted.countDown();
                throw e;
            }
        });
        Log other = new Log();
        m.subscribe(G0, other::add);
        send(one, "x");
        assertThat(blocked.await(TIMEOUT_S, TimeUnit.SECONDS)).isTrue();
        stuck.close();
        assertThat(interrupted.getCount()).as("close interrupted the blocked listener").isZero();
        for (int i = 0; i < 5; i++) {
            send(one, "y" + i);
        }
        other.await(6);
        assertThat(other.messages()).containsExactly("x", "y0", "y1", "y2", "y3", "y4");
        m.close();
        m.close();
        assertThatThrownBy(() -> m.multicast(G0, bytes("z"))).isInstanceOf(IllegalStateException.class);
    }
}
