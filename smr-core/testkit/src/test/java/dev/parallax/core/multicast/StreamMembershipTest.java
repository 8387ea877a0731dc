package dev.parallax.core.multicast;

import dev.parallax.core.exec.Joins;
import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.testkit.LocalNetwork;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link StreamMulticast} with streams over subsets of the processes and groups sharing a stream,
 * over an in-JVM stand-in broadcast per stream (one shared log that its members deliver in order,
 * a fixed leader): routing {@link Routing#LEADER}, so a message from a process outside a stream
 * travels origin → proxy member → leader, and both tell the origin it was decided. Also the
 * pure {@link StreamLayout} rules and the builder's refusals.
 */
class StreamMembershipTest {
    private static final long TIMEOUT_S = 30;
    private static final int PROCESSES = 3;
    /** Groups 0 and 1 share stream 0; group 2 has stream 2, on processes 1 and 2 only; the global stream on all. */
    private static final GroupSet GROUPS = GroupSet.of(0, 1, 2);
    private static final int[] STREAM2 = {1, 2};
    private final List<StreamMulticast> created = new ArrayList<>();
    private final List<SharedLog> logs = new ArrayList<>();

    @AfterEach
    void closeAll() {
        created.forEach(StreamMulticast::close);
    }

    /** One stream's order: every value proposed at a member is appended, and delivered to every member in order. */
    private static final class SharedLog {
        final int leader;
        final List<Node> nodes = new CopyOnWriteArrayList<>();
        final List<Envelope> decided = new CopyOnWriteArrayList<>();
        long next;

        SharedLog(int leader) {
            this.leader = leader;
        }

        synchronized void append(ByteBuffer value) {
            ByteBuffer copy = ByteBuffer.allocate(value.remaining()).put(value.duplicate()).flip();
            decided.add(Envelope.decode(copy));
            long instance = next++;
            for (Node n : nodes) {
                if (!n.queue.offer(Map.entry(instance, copy))) {
                    throw new IllegalStateException("test log overflow");
                }
            }
        }

        Node member(int process) {
            Node n = new Node(this, process);
            nodes.add(n);
            return n;
        }
    }

    private static final class Node implements AtomicBroadcast {
        final SharedLog log;
        final int process;
        final BlockingQueue<Map.Entry<Long, ByteBuffer>> queue = new ArrayBlockingQueue<>(100_000);
        Thread thread;

        Node(SharedLog log, int process) {
            this.log = log;
            this.process = process;
        }

        @Override
        public void start(DeliveryListener listener) {
            thread = new Thread(() -> {
                try {
                    while (true) {
                        Map.Entry<Long, ByteBuffer> e = queue.take();
                        listener.deliver(e.getKey(), e.getValue().duplicate());
                    }
                } catch (InterruptedException e) {
                    // closed
                }
            }, "shared-log-" + process);
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public boolean propose(ByteBuffer value) {
            assertThat(process).as("only the leader proposes").isEqualTo(log.leader);
            log.append(value);
            return true;
        }

        @Override
        public int redirectHint() {
            return log.leader;
        }

        @Override
        public void close() {
            if (thread != null) {
                thread.interrupt();
                Joins.joinUninterruptibly(thread);
            }
        }
    }

    /** Deliveries of one subscription. */
    private static final class Recorder {
        private final List<String> got = new ArrayList<>();

        synchronized void add(GroupSet g, ByteBuffer m, MulticastPosition after) {
            got.add(StandardCharsets.UTF_8.decode(m).toString());
            notifyAll();
        }

        synchronized List<String> await(int n) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            while (got.size() < n) {
                long left = deadline - System.nanoTime();
                assertThat(left).as("delivered " + got.size() + " of " + n + ": " + got).isPositive();
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return new ArrayList<>(got);
        }
    }

    private List<StreamMulticast> cluster(Map<Integer, Set<Integer>> built) {
        // Leaders: stream 0 process 0, stream 2 process 2 (process 0's proxy, 1, forwards to it), global process 1.
        Map<Integer, SharedLog> streams = Map.of(0, new SharedLog(0), 2, new SharedLog(2),
                MulticastPosition.GLOBAL_STREAM, new SharedLog(1));
        logs.addAll(List.of(streams.get(0), streams.get(2), streams.get(MulticastPosition.GLOBAL_STREAM)));
        LocalNetwork<MulticastForward> forwards = new LocalNetwork<>(PROCESSES);
        List<StreamMulticast> c = new ArrayList<>();
        for (int p = 0; p < PROCESSES; p++) {
            int self = p;
            Set<Integer> mine = ConcurrentHashMap.newKeySet();
            built.put(p, mine);
            c.add(StreamMulticast.builder().self(p).members(PROCESSES).groups(GROUPS).routing(Routing.LEADER)
                    .skips(SkipPolicy.NONE).groupStream(1, 0).streamMembers(2, STREAM2).credits(2)
                    .resendAfter(Duration.ofSeconds(10)).forwardTransport(forwards.transport(p))
                    .streams(stream -> {
                        mine.add(stream);
                        return streams.get(stream).member(self);
                    }).build());
        }
        created.addAll(c);
        return c;
    }

    private static void send(StreamMulticast origin, GroupSet groups, String m) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        while (!origin.multicast(groups, ByteBuffer.wrap(m.getBytes(StandardCharsets.UTF_8)))) {
            assertThat(System.nanoTime()).as("could not multicast " + m + ": credits not returned?").isLessThan(deadline);
            Thread.yield();
        }
    }

    @Test
    @DisplayName("a process runs only its streams; a message for another stream goes origin → member → leader, is "
            + "delivered once, and the decided notices return the origin's credits; groups sharing a stream share its order")
    void subsetsForwardingAndSharedStreams() throws InterruptedException {
        Map<Integer, Set<Integer>> built = new ConcurrentHashMap<>();
        List<StreamMulticast> c = cluster(built);
        assertThat(built.get(0)).as("process 0 never builds stream 2").containsExactlyInAnyOrder(0,
                MulticastPosition.GLOBAL_STREAM);
        assertThat(built.get(1)).containsExactlyInAnyOrder(0, 2, MulticastPosition.GLOBAL_STREAM);
        assertThat(c.get(0).runsStream(2)).isFalse();
        assertThat(c.get(0).runsStream(1)).as("group 1 has no stream of its own").isFalse();
        assertThat(c.get(0).canSubscribe(GroupSet.of(0, 1))).isTrue();
        assertThat(c.get(0).canSubscribe(GroupSet.of(2))).isFalse();
        assertThatThrownBy(() -> c.get(0).subscribe(GroupSet.of(1, 2), (g, m, p) -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not run the streams of groups {2}");

        Recorder at0 = new Recorder();
        Recorder at1 = new Recorder();
        Recorder at2 = new Recorder();
        c.get(0).subscribe(GroupSet.of(0), at0::add);
        c.get(1).subscribe(GROUPS, at1::add);
        c.get(2).subscribe(GROUPS, at2::add);
        // No skips (SkipPolicy.NONE): the merge delivers what every stream has up to its last round,
        // so each stream gets the same number of messages, N.
        int n = 8;
        List<String> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String s2 = "0->{2}#" + i;
            send(c.get(0), GroupSet.of(2), s2); // stream 2: process 0 runs it not
            String s0 = (i % 2 == 0 ? "2->{0,1}#" : "2->{1}#") + i;
            send(c.get(2), i % 2 == 0 ? GroupSet.of(0, 1) : GroupSet.of(1), s0); // stream 0 (shared)
            String sg = "0->{0,2}#" + i;
            send(c.get(0), GroupSet.of(0, 2), sg); // the global stream
            all.addAll(List.of(s2, s0, sg));
        }
        List<String> seen1 = at1.await(all.size());
        assertThat(seen1).containsExactlyInAnyOrderElementsOf(all);
        assertThat(at2.await(all.size())).as("the same order at every subscriber of the same groups").isEqualTo(seen1);
        List<String> group0 = seen1.stream().filter(m -> m.contains("{0")).toList();
        assertThat(at0.await(group0.size())).as("group 0's messages at process 0, in the common order")
                .isEqualTo(group0);
        assertThat(logs.get(0).decided).as("messages to {0, 1} are ordered in their shared stream 0")
                .anyMatch(e -> e.kind() == Envelope.Kind.MESSAGE && e.groupBits() == 0b11);
        assertThat(logs.get(2).decided).as("only messages to groups of several streams are in the global stream")
                .allMatch(e -> e.kind() == Envelope.Kind.MESSAGE && e.groupBits() == 0b101);
        assertThat(logs.get(1).decided).as("stream 2 has each message of process 0 once: its credits came back by notices, "
                + "not by resends (resendAfter 10 s)").hasSize(n).allMatch(e -> e.origin() == 0);
    }

    @Test
    @DisplayName("the layout: streams, group → stream, who may subscribe; and the builder's refusals")
    void layoutRulesAndRefusals() {
        Map<Integer, Integer> mapping = Map.of(1, 0);
        StreamLayout at0 = StreamLayout.of(0, 3, GROUPS, mapping, Map.of(2, STREAM2));
        assertThat(at0.ids()).containsExactly(0, 2, MulticastPosition.GLOBAL_STREAM);
        assertThat(at0.indexFor(GroupSet.of(0, 1))).as("one stream's groups: that stream").isZero();
        assertThat(at0.indexFor(GroupSet.of(1, 2))).isEqualTo(at0.globalIndex());
        assertThat(at0.indexOfGroup(2)).isEqualTo(1);
        assertThat(at0.runs(1)).isFalse();
        assertThat(at0.subscribable()).isEqualTo(0b11);
        assertThat(at0.fullMembership()).isFalse();
        assertThat(StreamLayout.of(1, 3, GROUPS, Map.of(), Map.of()).ids()).containsExactly(0, 1, 2,
                MulticastPosition.GLOBAL_STREAM);
        assertThat(StreamLayout.of(1, 3, GroupSet.of(0, 1), Map.of(1, 0), Map.of()).ids())
                .as("every group on one stream: no global stream").containsExactly(0);
        StreamLayout noGlobal = StreamLayout.of(2, 3, GROUPS, Map.of(), Map.of(MulticastPosition.GLOBAL_STREAM, new int[] {0, 1}));
        assertThat(noGlobal.subscribable()).as("without the global stream, nothing").isZero();
        assertThat(StreamLayout.describe(0)).isEqualTo("{}");

        assertThatThrownBy(() -> StreamLayout.of(0, 3, GROUPS, Map.of(5, 0), Map.of())).hasMessageContaining("not offered");
        assertThatThrownBy(() -> StreamLayout.of(0, 3, GROUPS, Map.of(1, 64), Map.of())).hasMessageContaining("0..63");
        assertThatThrownBy(() -> StreamLayout.of(0, 3, GROUPS, Map.of(), Map.of(7, new int[] {0})))
                .hasMessageContaining("not a stream");
        assertThatThrownBy(() -> StreamLayout.of(0, 3, GROUPS, Map.of(), Map.of(2, new int[0]))).hasMessageContaining("no members");
        assertThatThrownBy(() -> StreamLayout.of(0, 3, GROUPS, Map.of(), Map.of(2, new int[] {0, 3})))
                .hasMessageContaining("member 3");
        assertThatThrownBy(() -> StreamLayout.of(0, 3, GROUPS, Map.of(), Map.of(2, new int[] {1, 1})))
                .hasMessageContaining("twice");

        Map<Integer, SharedLog> none = new HashMap<>();
        assertThatThrownBy(() -> StreamMulticast.builder().self(0).members(3).groups(GROUPS).routing(Routing.LOCAL)
                .skips(SkipPolicy.NONE).streamMembers(2, STREAM2).streams(s -> none.get(s).member(0)).build())
                .as("process 0 runs not stream 2 and has no forward transport")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("forward transport is required");
        LocalNetwork<MulticastForward> net = new LocalNetwork<>(3);
        assertThatThrownBy(() -> StreamMulticast.builder().self(0).members(3).groups(GROUPS)
                .streamMembers(2, STREAM2).forwardTransport(net.transport(0)).streams(s -> none.get(s).member(0)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("demand skips need every process");
    }
}
