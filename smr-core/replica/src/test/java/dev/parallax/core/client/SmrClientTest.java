package dev.parallax.core.client;

import dev.parallax.core.GroupSet;
import dev.parallax.core.StateMachine;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.wire.ClientWire;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The client library's fail-over and retry rules, against stand-in replicas that answer exactly
 * as each case needs ({@link FakeReplica}) and against real replicas over an in-process shared log
 * ({@link SharedLogOrdering}).
 */
class SmrClientTest {
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private <T extends AutoCloseable> T track(T c) {
        open.add(c);
        return c;
    }

    private SmrClient client(ClusterMembers endpoints, Duration retry, Duration invoke) {
        return track(SmrClient.connect(ClientConfig.builder(endpoints).clientId(42).retryTimeout(retry)
                .invokeTimeout(invoke).build()));
    }

    private static ByteBuffer cmd(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(ByteBuffer b) {
        return StandardCharsets.UTF_8.decode(b.duplicate()).toString();
    }

    @Test
    void aRedirectIsFollowedToTheNamedLeader() throws Exception {
        FakeReplica follower = track(new FakeReplica((r, out) -> out.redirect(r.sequence(), 1)));
        FakeReplica leader = track(new FakeReplica((r, out) -> out.ok(r.sequence(), "done " + r.sequence())));
        SmrClient client = client(ClusterMembers.of(follower.member(0), leader.member(1)),
                Duration.ofSeconds(10), Duration.ofSeconds(20));

        assertThat(text(client.invoke(cmd("a")).get(10, TimeUnit.SECONDS))).isEqualTo("done 1");
        assertThat(client.currentReplica()).isEqualTo(1);
        assertThat(follower.received().take()).isEqualTo(new FakeReplica.Received(1, 42, 1, "a"));
        assertThat(leader.received().take()).isEqualTo(new FakeReplica.Received(1, 42, 1, "a"));
    }

    @Test
    void startAtMakesTheClientTalkToThatReplicaFirstAndFailOverRotatesOnFromIt() throws Exception {
        FakeReplica first = track(new FakeReplica((r, out) -> out.ok(r.sequence(), "from 0")));
        FakeReplica silent = track(new FakeReplica((r, out) -> { }));
        FakeReplica next = track(new FakeReplica((r, out) -> out.ok(r.sequence(), "from 2")));
        SmrClient client = track(SmrClient.connect(ClientConfig.builder(
                        ClusterMembers.of(first.member(0), silent.member(1), next.member(2)))
                .clientId(42).startAt(1).retryTimeout(Duration.ofMillis(200)).invokeTimeout(Duration.ofSeconds(20)).build()));

        assertThat(client.currentReplica()).isEqualTo(1);
        assertThat(text(client.invoke(cmd("a")).get(10, TimeUnit.SECONDS))).isEqualTo("from 2");
        assertThat(silent.received().take()).isEqualTo(new FakeReplica.Received(1, 42, 1, "a"));
        assertThat(next.received().take()).isEqualTo(new FakeReplica.Received(1, 42, 1, "a"));
        assertThat(first.received()).isEmpty();
        assertThat(client.currentReplica()).isEqualTo(2);
    }

    @Test
    void aConnectedButSilentReplicaIsLeftAfterTheRetryTimeoutAndTheCommandResent() throws Exception {
        FakeReplica silent = track(new FakeReplica((r, out) -> { }));
        FakeReplica live = track(new FakeReplica((r, out) -> out.ok(r.sequence(), "done " + r.payload().remaining())));
        SmrClient client = client(ClusterMembers.of(silent.member(0), live.member(1)),
                Duration.ofMillis(200), Duration.ofSeconds(20));

        long start = System.nanoTime();
        assertThat(text(client.invoke(cmd("abc")).get(10, TimeUnit.SECONDS))).isEqualTo("done 3");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(200);
        assertThat(client.currentReplica()).isEqualTo(1);
        // The same (client, sequence) at both: the replicas' sessions make the resend exactly-once.
        assertThat(silent.received().take()).isEqualTo(new FakeReplica.Received(1, 42, 1, "abc"));
        assertThat(live.received().take()).isEqualTo(new FakeReplica.Received(1, 42, 1, "abc"));
    }

    @Test
    void retryFromResendsEveryCommandFromTheGapInOrder() throws Exception {
        AtomicBoolean firstLost = new AtomicBoolean();
        AtomicBoolean resent = new AtomicBoolean();
        FakeReplica replica = track(new FakeReplica((r, out) -> {
            if (r.sequence() == 1 && firstLost.compareAndSet(false, true)) {
                return; // lost in a fail-over: the next commands find a gap
            }
            if (r.sequence() == 1) {
                resent.set(true);
            }
            if (resent.get()) {
                out.ok(r.sequence(), "r" + r.sequence());
            } else {
                out.retryFrom(r.sequence(), 1);
            }
        }));
        SmrClient client = client(ClusterMembers.of(replica.member(0)), Duration.ofSeconds(10), Duration.ofSeconds(20));

        List<CompletableFuture<ByteBuffer>> futures = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            futures.add(client.invoke(cmd("c" + (i + 1))));
        }
        for (int i = 0; i < 3; i++) {
            assertThat(text(futures.get(i).get(10, TimeUnit.SECONDS))).isEqualTo("r" + (i + 1));
        }
        List<Long> order = new ArrayList<>();
        for (FakeReplica.Received r : replica.received()) {
            order.add(r.sequence());
        }
        // Go-back-N: the gap's RETRY_FROM 1 brings every command from the gap again, in order. The
        // first RETRY_FROM may reach the client before it has sent command 3 (invoke is
        // asynchronous), so the first pass holds 1, 2 and possibly 3; from the resend of 1 on, the
        // replica sees 1, 2, 3 in order.
        int resend = order.subList(1, order.size()).indexOf(1L) + 1;
        assertThat(resend).as("command 1 is resent: %s", order).isPositive();
        assertThat(order.subList(0, resend)).as("first pass in %s", order).isIn(List.of(1L, 2L), List.of(1L, 2L, 3L));
        List<Long> afterResend = order.subList(resend, order.size());
        assertThat(afterResend.subList(0, Math.min(3, afterResend.size())))
                .as("from the resend on, in %s", order).containsExactly(1L, 2L, 3L);
        assertThat(replica.received()).allMatch(r -> r.connection() == 1);
    }

    @Test
    void anExpiredSessionFailsPendingAndLaterCommandsClearly() throws Exception {
        FakeReplica replica = track(new FakeReplica((r, out) ->
                out.message(r.sequence(), ClientWire.SESSION_EXPIRED, "session of client 42 expired; start a new client")));
        SmrClient client = client(ClusterMembers.of(replica.member(0)), Duration.ofSeconds(10), Duration.ofSeconds(20));

        CompletableFuture<ByteBuffer> f = client.invoke(cmd("x"));
        assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).cause()
                .isInstanceOf(IllegalStateException.class).hasMessage("session of client 42 expired; start a new client");
        CompletableFuture<ByteBuffer> later = client.invoke(cmd("y"));
        assertThatThrownBy(() -> later.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).cause()
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("expired");
        assertThat(client.pending()).isZero();
    }

    @Test
    void withNoReplicaAnsweringTheCommandFailsWithAClearExceptionInTime() throws Exception {
        FakeReplica a = track(new FakeReplica((r, out) -> { }));
        FakeReplica b = track(new FakeReplica((r, out) -> { }));
        SmrClient client = client(ClusterMembers.of(a.member(0), b.member(1)), Duration.ofMillis(100), Duration.ofMillis(600));

        long start = System.nanoTime();
        CompletableFuture<ByteBuffer> f = client.invoke(cmd("x"));
        assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).cause()
                .isInstanceOf(ClusterUnavailableException.class).hasMessageContaining("no quorum");
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(tookMillis).isGreaterThanOrEqualTo(600).isLessThan(5_000);
        assertThat(client.pending()).isZero();
        // It tried both replicas before giving up.
        assertThat(a.received().take().sequence()).isEqualTo(1);
        assertThat(b.received().take().sequence()).isEqualTo(1);
    }

    @Test
    void withNoReplicaReachableTheCommandFailsAsNotConnected() throws Exception {
        ClusterMembers nobody = ClusterMembers.parse(LocalPorts.endpoints(2));
        SmrClient client = client(nobody, Duration.ofMillis(100), Duration.ofMillis(400));
        CompletableFuture<ByteBuffer> f = client.invoke(cmd("x"));
        assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).cause()
                .isInstanceOf(ClusterUnavailableException.class).hasMessageContaining("not connected to any replica");
    }

    @Test
    void aCommandTooBigForTheFrameLimitFailsAtOnceUnsent() throws Exception {
        FakeReplica replica = track(new FakeReplica((r, out) -> out.ok(r.sequence(), "size " + r.payload().remaining())));
        SmrClient client = track(SmrClient.connect(ClientConfig.builder(ClusterMembers.of(replica.member(0)))
                .maxFrameBytes(1024).build()));
        CompletableFuture<ByteBuffer> tooBig = client.invoke(ByteBuffer.allocate(1024 - 26 + 1));
        assertThatThrownBy(() -> tooBig.get(1, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).cause()
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a command of 999 bytes exceeds the frame limit of 1024 bytes (26 of them framing)");
        assertThat(text(client.invoke(ByteBuffer.allocate(1024 - 26)).get(10, TimeUnit.SECONDS))).isEqualTo("size 998");
        assertThat(replica.received().take().sequence()).as("the refused command took no sequence number").isEqualTo(1);
        assertThat(client.pending()).isZero();
    }

    @Test
    void aCommandResentToAnotherReplicaIsAnsweredFromItsReplyCacheNotExecutedAgain() throws Exception {
        SharedLogOrdering log = new SharedLogOrdering();
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(2));
        ClusterMembers clients = ClusterMembers.parse(LocalPorts.endpoints(2));
        List<Counting> machines = List.of(new Counting(), new Counting());
        List<Replica> replicas = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            // No leader hint (-1): each replica orders what its own clients send. Replica 0's
            // deliveries are held: it ordered the command, but its reply never comes.
            Replica r = track(Replica.builder()
                    .config(ReplicaConfig.builder().id(i).members(members).clientMembers(clients).clientIoThreads(1).build())
                    .stateMachine(machines.get(i)).ordering(log.member(i, -1, i == 0)).build());
            replicas.add(r);
        }
        replicas.forEach(Replica::start);
        // The retry timeout leaves replica 0 ample time to order the command before the client
        // gives up on it (on a slow machine a short one could let the resend be ordered first).
        SmrClient client = client(clients, Duration.ofSeconds(2), Duration.ofSeconds(20));

        assertThat(text(client.invoke(cmd("inc")).get(10, TimeUnit.SECONDS))).isEqualTo("1");
        assertThat(client.currentReplica()).isEqualTo(1);
        // Replica 1 executed the command when replica 0 ordered it, then got the resend: a duplicate.
        // Should the resend still have been ordered first, the duplicate is replica 0's copy, found
        // after the reply: wait for it rather than read the counter at once.
        Await.until("replica 1 to see the duplicate", Duration.ofSeconds(10),
                () -> counter(replicas.get(1), "parallax.commands.duplicate") >= 1.0);
        assertThat(counter(replicas.get(1), "parallax.commands.duplicate")).isEqualTo(1.0);
        assertThat(counter(replicas.get(1), "parallax.commands.executed")).isEqualTo(1.0);
        assertThat(machines.get(1).count).isEqualTo(1);

        assertThat(text(client.invoke(cmd("inc")).get(10, TimeUnit.SECONDS))).isEqualTo("2");
        assertThat(counter(replicas.get(1), "parallax.commands.duplicate")).isEqualTo(1.0);
        log.release(0);
    }

    @Test
    void commandsToSeveralGroupsAreNumberedPerStreamAndRepliesMatchedByStream() throws Exception {
        // The fake holds every reply until all six requests are in, then answers in reverse order:
        // sequence numbers repeat across streams, so only the stream in each reply tells them apart.
        List<ClientWire.Request> held = new CopyOnWriteArrayList<>();
        FakeReplica replica = track(new FakeReplica((r, out) -> {
            held.add(r);
            if (held.size() == 6) {
                for (int i = held.size() - 1; i >= 0; i--) {
                    ClientWire.Request h = held.get(i);
                    out.ok(h.id(), h.groups() + "#" + h.sequence() + ":" + text(h.payload()));
                }
            }
        }));
        SmrClient client = client(ClusterMembers.of(replica.member(0)), Duration.ofSeconds(10), Duration.ofSeconds(20));
        GroupSet one = GroupSet.of(1);
        GroupSet two = GroupSet.of(2);
        GroupSet both = GroupSet.of(1, 2);
        List<CompletableFuture<ByteBuffer>> futures = List.of(
                client.invoke(cmd("a")), client.invoke(one, cmd("b")), client.invoke(two, cmd("c")),
                client.invoke(one, cmd("d")), client.invoke(GroupSet.DEFAULT, cmd("e")), client.invoke(both, cmd("f")));
        List<String> replies = new ArrayList<>();
        for (CompletableFuture<ByteBuffer> f : futures) {
            replies.add(text(f.get(10, TimeUnit.SECONDS)));
        }
        assertThat(replies).containsExactly("{0}#1:a", "{1}#1:b", "{2}#1:c", "{1}#2:d", "{0}#2:e", "{1,2}#1:f");
        assertThat(replica.received()).extracting(FakeReplica.Received::groups)
                .containsExactly(GroupSet.DEFAULT, one, two, one, GroupSet.DEFAULT, both);
        assertThat(client.pending()).isZero();
    }

    @Test
    void aGapInOneStreamResendsThatStreamOnlyFromTheGap() throws Exception {
        GroupSet g = GroupSet.of(3);
        AtomicBoolean firstLost = new AtomicBoolean();
        AtomicBoolean resent = new AtomicBoolean();
        FakeReplica replica = track(new FakeReplica((r, out) -> {
            if (r.groups().isDefault()) {
                out.ok(r.id(), "default " + r.sequence());
                return;
            }
            if (r.sequence() == 1 && firstLost.compareAndSet(false, true)) {
                return; // lost in a fail-over: the stream's next commands find a gap
            }
            if (r.sequence() == 1) {
                resent.set(true);
            }
            if (resent.get()) {
                out.ok(r.id(), "g " + r.sequence());
            } else {
                out.retryFrom(r.id(), 1);
            }
        }));
        SmrClient client = client(ClusterMembers.of(replica.member(0)), Duration.ofSeconds(10), Duration.ofSeconds(20));
        // Sent in this order on one connection: {3}:1 (lost), {0}:1, {3}:2 (gap), {0}:2, {3}:3 (gap).
        List<CompletableFuture<ByteBuffer>> grouped = new ArrayList<>();
        List<CompletableFuture<ByteBuffer>> plain = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            grouped.add(client.invoke(g, cmd("g" + i)));
            if (i < 2) {
                plain.add(client.invoke(cmd("p" + i)));
            }
        }
        for (int i = 0; i < 3; i++) {
            assertThat(text(grouped.get(i).get(10, TimeUnit.SECONDS))).isEqualTo("g " + (i + 1));
        }
        for (int i = 0; i < 2; i++) {
            assertThat(text(plain.get(i).get(10, TimeUnit.SECONDS))).isEqualTo("default " + (i + 1));
        }
        List<String> order = new ArrayList<>();
        for (FakeReplica.Received r : replica.received()) {
            order.add(r.groups() + ":" + r.sequence());
        }
        // Go-back-N in stream {3} alone: its commands from the gap again, in order; the default
        // stream's two commands, answered at once, were sent once. As in
        // retryFromResendsEveryCommandFromTheGapInOrder, the first RETRY_FROM may reach the client
        // before it has sent {3}:3, so the first pass holds {3}:1, {3}:2 and possibly {3}:3; from
        // the resend of {3}:1 on, the replica sees {3}:1, {3}:2, {3}:3 in order.
        List<String> stream = order.stream().filter(s -> s.startsWith("{3}")).toList();
        int resend = stream.subList(1, stream.size()).indexOf("{3}:1") + 1;
        assertThat(resend).as("{3}:1 is resent: %s", order).isPositive();
        assertThat(stream.subList(0, resend)).as("first pass in %s", order)
                .isIn(List.of("{3}:1", "{3}:2"), List.of("{3}:1", "{3}:2", "{3}:3"));
        List<String> afterResend = stream.subList(resend, stream.size());
        assertThat(afterResend.subList(0, Math.min(3, afterResend.size())))
                .as("from the resend on, in %s", order).containsExactly("{3}:1", "{3}:2", "{3}:3");
        assertThat(order).filteredOn(s -> s.startsWith("{0}")).containsExactly("{0}:1", "{0}:2");
        assertThat(replica.received()).allMatch(r -> r.connection() == 1);
    }

    @Test
    void commandsSpreadOverSeveralGroupsRunExactlyOnceOnRealReplicasWithNoFalseGap() throws Exception {
        SharedLogOrdering log = new SharedLogOrdering();
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(1));
        ClusterMembers clients = ClusterMembers.parse(LocalPorts.endpoints(1));
        Counting machine = new Counting();
        Replica replica = track(Replica.builder()
                .config(ReplicaConfig.builder().id(0).members(members).clientMembers(clients).clientIoThreads(1).build())
                .stateMachine(machine).ordering(log.member(0, -1, false)).build());
        replica.start();
        SmrClient client = client(clients, Duration.ofSeconds(5), Duration.ofSeconds(30));

        GroupSet[] streams = {GroupSet.DEFAULT, GroupSet.of(1), GroupSet.of(2), GroupSet.of(1, 2)};
        int n = 400;
        List<CompletableFuture<ByteBuffer>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            futures.add(client.invoke(streams[(i * 7 + i / 3) % streams.length], cmd("inc")));
        }
        List<Long> counts = new ArrayList<>();
        for (CompletableFuture<ByteBuffer> f : futures) {
            counts.add(Long.parseLong(text(f.get(20, TimeUnit.SECONDS))));
        }
        // Each command executed once: the counts seen are exactly 1..n.
        assertThat(counts).doesNotHaveDuplicates().hasSize(n);
        assertThat(counts.stream().mapToLong(Long::longValue).max().getAsLong()).isEqualTo(n);
        assertThat(machine.count).isEqualTo(n);
        assertThat(counter(replica, "parallax.commands.executed")).isEqualTo(n);
        assertThat(counter(replica, "parallax.commands.duplicate")).isZero();
    }

    /** One replica over a shared log whose proposals can be lost; started. */
    private Replica sharedLogReplica(SharedLogOrdering log, ClusterMembers clients, Counting machine) {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(1));
        Replica replica = track(Replica.builder()
                .config(ReplicaConfig.builder().id(0).members(members).clientMembers(clients).clientIoThreads(1).build())
                .stateMachine(machine).ordering(log.member(0, -1, false)).build());
        replica.start();
        return replica;
    }

    @Test
    void aTimedOutCommandKeepsItsSequenceAndTheSameClientServesAfterTheOutage() throws Exception {
        // An outage longer than the invoke timeout in which nothing is ordered.
        // A client that forgot the timed-out command left a gap its later commands never crossed.
        SharedLogOrdering log = new SharedLogOrdering();
        ClusterMembers clients = ClusterMembers.parse(LocalPorts.endpoints(1));
        Counting machine = new Counting();
        Replica replica = sharedLogReplica(log, clients, machine);
        SmrClient client = client(clients, Duration.ofMillis(200), Duration.ofSeconds(1));
        assertThat(text(client.invoke(cmd("inc")).get(10, TimeUnit.SECONDS))).isEqualTo("1");

        log.dropProposals(true);
        CompletableFuture<ByteBuffer> lost = client.invoke(cmd("inc"));
        assertThatThrownBy(() -> lost.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).cause()
                .isInstanceOf(OutcomeUnknownException.class)
                .hasMessageContaining("may or may not have executed");
        assertThat(log.dropped()).isPositive();
        assertThat(client.pending()).as("the caller's future is complete").isZero();
        log.dropProposals(false);

        // The same client serves again: the timed-out command is still resent (and runs once, as
        // sequence 2), so the next command crosses no gap.
        assertThat(text(client.invoke(cmd("inc")).get(5, TimeUnit.SECONDS))).isEqualTo("3");
        assertThat(machine.count).isEqualTo(3);
        assertThat(counter(replica, "parallax.commands.executed")).isEqualTo(3.0);
        assertThat(text(client.invoke(cmd("inc")).get(5, TimeUnit.SECONDS))).isEqualTo("4");
        assertThat(machine.count).isEqualTo(4);
    }

    @Test
    void aCommandThatTimedOutUnsentFailsAsNotExecutedAndLeavesNoGap() throws Exception {
        SharedLogOrdering log = new SharedLogOrdering();
        ClusterMembers clients = ClusterMembers.parse(LocalPorts.endpoints(1));
        Counting machine = new Counting();
        Replica replica = sharedLogReplica(log, clients, machine);
        SmrClient client = track(SmrClient.connect(ClientConfig.builder(clients).clientId(42).maxOutstanding(1)
                .retryTimeout(Duration.ofMillis(200)).invokeTimeout(Duration.ofSeconds(1)).build()));
        assertThat(text(client.invoke(cmd("inc")).get(10, TimeUnit.SECONDS))).isEqualTo("1");

        log.dropProposals(true);
        CompletableFuture<ByteBuffer> sent = client.invoke(cmd("inc"));
        CompletableFuture<ByteBuffer> unsent = client.invoke(cmd("inc")); // the window of 1 is full
        assertThatThrownBy(() -> sent.get(20, TimeUnit.SECONDS)).cause().isInstanceOf(OutcomeUnknownException.class);
        assertThatThrownBy(() -> unsent.get(20, TimeUnit.SECONDS)).cause()
                .isInstanceOf(ClusterUnavailableException.class).isNotInstanceOf(OutcomeUnknownException.class)
                .hasMessageContaining("was not sent");
        log.dropProposals(false);

        // The sent one may still run (it does, once); the unsent one took no sequence number.
        assertThat(text(client.invoke(cmd("inc")).get(5, TimeUnit.SECONDS))).isEqualTo("3");
        assertThat(machine.count).isEqualTo(3);
        assertThat(counter(replica, "parallax.commands.executed")).isEqualTo(3.0);
    }

    private static double counter(Replica r, String name) {
        return r.meterRegistry().find(name).counter().count();
    }

    /** Counts the commands it executed; replies with the new count. */
    private static final class Counting implements StateMachine {
        volatile long count;

        @Override
        public ByteBuffer execute(ByteBuffer command) {
            count++;
            return cmd(Long.toString(count));
        }

        @Override
        public void snapshot(WritableByteChannel out) throws IOException {
            out.write(ByteBuffer.allocate(8).putLong(0, count));
        }

        @Override
        public void restore(ReadableByteChannel in) throws IOException {
            ByteBuffer b = ByteBuffer.allocate(8);
            while (b.hasRemaining()) {
                if (in.read(b) < 0) {
                    throw new IOException("snapshot truncated");
                }
            }
            count = b.getLong(0);
        }
    }
}
