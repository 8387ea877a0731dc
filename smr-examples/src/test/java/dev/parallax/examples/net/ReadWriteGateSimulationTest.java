package dev.parallax.examples.net;

import dev.parallax.core.client.CommandInvoker;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ReadWriteGate} under seeded random pipelines: reads, writes on three streams and barriers
 * ({@link ReadWriteGate#order}) submitted and answered in a random interleaving, every step on the
 * connection's event loop (so replayable from the seed, printed on failure). A {@link Spec} checks
 * each send against the gate's rules: an ordered operation leaves only after every operation sent
 * before it, with no query in flight and only operations of its own stream in flight (a barrier:
 * none); a read leaves as a query only with nothing ordered in flight or waiting; every operation is
 * answered exactly once. Seeds: {@code -Dgate.sim.seeds} (200 by default); one seed: {@code -Dgate.sim.seed}.
 */
class ReadWriteGateSimulationTest {
    private static final String BARRIER = "barrier";
    private final EventLoop loop = new DefaultEventLoop();

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /**
     * What the gate may do, replayed as it happens: operations submitted (in order), sent (as query or
     * ordered, on a stream) and answered. Throws {@link AssertionError} at the first send that breaks a rule.
     */
    static final class Spec {
        private final Map<Integer, String> streamOf = new HashMap<>();
        private final List<Integer> waiting = new ArrayList<>(); // submitted, not sent, in order
        private final Map<Integer, String> orderedInFlight = new HashMap<>();
        private int queriesInFlight;
        private final Map<Integer, Integer> answers = new HashMap<>();
        private final Map<Integer, Boolean> asQuery = new HashMap<>();

        void submitted(int id, String stream) {
            streamOf.put(id, stream);
            waiting.add(id);
        }

        /** A read about to be submitted: whether the rules let it go as a query. */
        boolean queryAllowed() {
            return waiting.isEmpty() && orderedInFlight.isEmpty();
        }

        void sentAsQuery(int id) {
            if (waiting.size() != 1 || waiting.get(0) != id || !orderedInFlight.isEmpty()) {
                throw new AssertionError("read " + id + " went as a query with " + orderedInFlight.keySet()
                        + " ordered in flight and " + waiting + " waiting");
            }
            waiting.remove(Integer.valueOf(id));
            asQuery.put(id, true);
            queriesInFlight++;
        }

        void sentOrdered(int id) {
            String stream = streamOf.get(id);
            if (waiting.isEmpty() || waiting.get(0) != id) {
                throw new AssertionError("operation " + id + " left before " + waiting + " sent earlier");
            }
            if (queriesInFlight > 0) {
                throw new AssertionError("operation " + id + " left with " + queriesInFlight + " queries in flight");
            }
            for (String other : orderedInFlight.values()) {
                if (BARRIER.equals(stream) || BARRIER.equals(other) || !other.equals(stream)) {
                    throw new AssertionError("operation " + id + " (" + stream + ") left with " + orderedInFlight + " in flight");
                }
            }
            waiting.remove(0);
            asQuery.put(id, false);
            orderedInFlight.put(id, stream);
        }

        void completed(int id) {
            if (orderedInFlight.remove(id) == null) {
                queriesInFlight--;
            }
        }

        void answered(int id) {
            answers.merge(id, 1, Integer::sum);
        }

        void checkAllAnswered(int operations) {
            for (int id = 0; id < operations; id++) {
                assertThat(answers.get(id)).as("answers of operation %d", id).isEqualTo(1);
            }
            assertThat(waiting).isEmpty();
        }
    }

    /** Sends record themselves in the spec; the test completes them. */
    private static final class Invoker implements CommandInvoker {
        final Spec spec;
        final List<Integer> inFlight = new ArrayList<>();
        private final Map<Integer, CompletableFuture<ByteBuffer>> commands = new HashMap<>();
        private final Map<Integer, CompletableFuture<Object>> barriers = new HashMap<>();

        Invoker(Spec spec) {
            this.spec = spec;
        }

        @Override
        public CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
            int id = command.getInt(command.position());
            spec.sentOrdered(id);
            return track(id, commands);
        }

        @Override
        public CompletableFuture<ByteBuffer> query(ByteBuffer query) {
            int id = query.getInt(query.position());
            spec.sentAsQuery(id);
            return track(id, commands);
        }

        /** The call of barrier {@code id}, run by the gate when it leaves. */
        CompletableFuture<Object> barrier(int id) {
            spec.sentOrdered(id);
            return track(id, barriers);
        }

        private <T> CompletableFuture<T> track(int id, Map<Integer, CompletableFuture<T>> futures) {
            CompletableFuture<T> f = new CompletableFuture<>();
            inFlight.add(id);
            futures.put(id, f);
            return f;
        }

        void complete(int id) {
            inFlight.remove(Integer.valueOf(id));
            spec.completed(id);
            CompletableFuture<Object> b = barriers.remove(id);
            if (b != null) {
                b.complete("done");
            } else {
                commands.remove(id).complete(ByteBuffer.allocate(4).putInt(0, id));
            }
        }
    }

    /** One seeded run of {@code steps} random steps, then every operation answered. */
    private static void run(long seed, int steps, EventLoop loop) {
        Random rnd = new Random(seed);
        Spec spec = new Spec();
        Invoker invoker = new Invoker(spec);
        ReadWriteGate gate = new ReadWriteGate(loop, invoker);
        String[] streams = {"s0", "s1", "s2"};
        int next = 0;
        for (int step = 0; step < steps || !invoker.inFlight.isEmpty(); step++) {
            if (step < steps && (invoker.inFlight.isEmpty() || rnd.nextInt(3) > 0)) {
                int id = next++;
                ByteBuffer command = ByteBuffer.allocate(4).putInt(0, id);
                String stream = streams[rnd.nextInt(streams.length)];
                int kind = rnd.nextInt(10);
                if (kind < 4) {
                    boolean expected = spec.queryAllowed();
                    spec.submitted(id, stream);
                    boolean query = gate.read(command, stream, o -> spec.answered(id));
                    assertThat(query).as("read %d went as a query", id).isEqualTo(expected);
                } else if (kind < 9) {
                    spec.submitted(id, stream);
                    gate.write(command, stream, o -> spec.answered(id));
                } else {
                    spec.submitted(id, BARRIER);
                    gate.order(() -> invoker.barrier(id), o -> spec.answered(id));
                }
            } else {
                invoker.complete(invoker.inFlight.get(rnd.nextInt(invoker.inFlight.size())));
            }
        }
        spec.checkAllAnswered(next);
    }

    @Test
    @DisplayName("seeded random pipelines: every send keeps the gate's rules (FIFO across streams, barriers, queries) and every operation is answered once")
    void randomPipelinesKeepTheRules() throws Exception {
        Long one = Long.getLong("gate.sim.seed");
        int seeds = Integer.getInteger("gate.sim.seeds", 200);
        long first = one != null ? one : 1;
        long last = one != null ? one : seeds;
        for (long seed = first; seed <= last; seed++) {
            long s = seed;
            try {
                loop.submit(() -> run(s, 120, loop)).get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new AssertionError("seed " + s + " (replay: -Dgate.sim.seed=" + s + ")", e.getCause());
            }
        }
        System.out.println("ReadWriteGateSimulationTest: seeds " + first + ".." + last + " kept the rules");
    }

    @Test
    @DisplayName("the spec bites: a second stream sent beside the first, a send out of order and a query beside a write are each caught")
    void theSpecBites() {
        Spec twoStreams = new Spec();
        twoStreams.submitted(0, "s0");
        twoStreams.submitted(1, "s1");
        twoStreams.sentOrdered(0);
        assertThatThrownBy(() -> twoStreams.sentOrdered(1)).isInstanceOf(AssertionError.class).hasMessageContaining("in flight");

        Spec outOfOrder = new Spec();
        outOfOrder.submitted(0, "s0");
        outOfOrder.submitted(1, "s0");
        assertThatThrownBy(() -> outOfOrder.sentOrdered(1)).isInstanceOf(AssertionError.class).hasMessageContaining("earlier");

        Spec queryBesideWrite = new Spec();
        queryBesideWrite.submitted(0, "s0");
        queryBesideWrite.sentOrdered(0);
        queryBesideWrite.submitted(1, "s0");
        assertThatThrownBy(() -> queryBesideWrite.sentAsQuery(1)).isInstanceOf(AssertionError.class);

        Spec besideBarrier = new Spec();
        besideBarrier.submitted(0, BARRIER);
        besideBarrier.submitted(1, "s0");
        besideBarrier.sentOrdered(0);
        assertThatThrownBy(() -> besideBarrier.sentOrdered(1)).isInstanceOf(AssertionError.class);
    }
}
