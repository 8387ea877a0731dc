package dev.parallax.examples.net;

import dev.parallax.core.client.CommandInvoker;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ReadWriteGate}: a connection's reads go as queries only where its pipeline's order allows,
 * and its ordered commands of different streams (under S-SMR, destination sets, seed 004 §IV) leave
 * one stream at a time, in the order sent.
 */
class ReadWriteGateTest {
    private final EventLoop loop = new DefaultEventLoop();

    /** Records what was sent how, and lets the test complete each call. */
    private static class Recording implements CommandInvoker {
        final List<String> sent = new ArrayList<>();
        final List<CompletableFuture<ByteBuffer>> futures = new ArrayList<>();

        @Override
        public CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
            return record("ordered " + text(command));
        }

        @Override
        public CompletableFuture<ByteBuffer> query(ByteBuffer query) {
            return record("query " + text(query));
        }

        private CompletableFuture<ByteBuffer> record(String what) {
            sent.add(what);
            CompletableFuture<ByteBuffer> f = new CompletableFuture<>();
            futures.add(f);
            return f;
        }
    }

    private static String text(ByteBuffer b) {
        return StandardCharsets.UTF_8.decode(b.duplicate()).toString();
    }

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private void onLoop(Runnable r) throws Exception {
        loop.submit(r).get(10, TimeUnit.SECONDS);
    }

    @Test
    @DisplayName("without a key a command takes its invoker's stream: a routed invoker's commands to another group wait (the Redis front end)")
    void theInvokersStreamIsTheDefaultKey() throws Exception {
        Recording invoker = new Recording() {
            @Override
            public dev.parallax.core.GroupSet stream(ByteBuffer command) {
                return dev.parallax.core.GroupSet.of(text(command).endsWith("a") ? 0 : 1); // key a: group 0, others 1
            }

            @Override
            public CompletableFuture<ByteBuffer> invoke(dev.parallax.core.GroupSet groups, ByteBuffer command) {
                return invoke(command); // sent to the groups the stream named: routed once
            }
        };
        ReadWriteGate gate = new ReadWriteGate(loop, invoker);
        List<Object> done = new ArrayList<>();
        onLoop(() -> {
            gate.write(bytes("INCR a"), done::add);
            gate.write(bytes("INCR a"), done::add);
            gate.write(bytes("INCR b"), done::add);
        });
        assertThat(invoker.sent).containsExactly("ordered INCR a", "ordered INCR a");
        onLoop(() -> List.copyOf(invoker.futures).forEach(f -> f.complete(bytes("1"))));
        assertThat(invoker.sent).containsExactly("ordered INCR a", "ordered INCR a", "ordered INCR b");
        onLoop(() -> invoker.futures.get(2).complete(bytes("1")));
        assertThat(done).hasSize(3);
    }

    @Test
    @DisplayName("a read with nothing ordered in flight is a query; one behind a write in flight is ordered behind it")
    void readsAreQueriesOnlyWithNoWriteInFlight() throws Exception {
        Recording invoker = new Recording();
        ReadWriteGate gate = new ReadWriteGate(loop, invoker);
        List<Object> done = new ArrayList<>();
        onLoop(() -> gate.read(bytes("GET a"), done::add));
        onLoop(() -> invoker.futures.get(0).complete(bytes("1")));
        onLoop(() -> {
            gate.write(bytes("SET a 2"), done::add);
            gate.read(bytes("GET a"), done::add);
        });
        assertThat(invoker.sent).containsExactly("query GET a", "ordered SET a 2", "ordered GET a");
        onLoop(() -> invoker.futures.forEach(f -> f.complete(bytes("x"))));
        onLoop(() -> gate.read(bytes("GET b"), done::add));
        assertThat(invoker.sent).as("all answered: a query again").last().isEqualTo("query GET b");
    }

    @Test
    @DisplayName("a write behind a query in flight waits for its answer, and what follows it waits in order")
    void writesWaitForTheQueriesBeforeThem() throws Exception {
        Recording invoker = new Recording();
        ReadWriteGate gate = new ReadWriteGate(loop, invoker);
        List<Object> done = new ArrayList<>();
        onLoop(() -> {
            gate.read(bytes("GET a"), done::add);
            gate.write(bytes("SET a 2"), done::add);
            gate.read(bytes("GET a"), done::add);
        });
        assertThat(invoker.sent).as("the write and the read after it are held").containsExactly("query GET a");
        onLoop(() -> invoker.futures.get(0).complete(bytes("1")));
        onLoop(() -> { }); // the completion's hand-back ran
        assertThat(invoker.sent).containsExactly("query GET a", "ordered SET a 2", "ordered GET a");
        assertThat(done).hasSize(1);
    }

    @Test
    @DisplayName("read says whether it went as a query")
    void readReportsItsPath() throws Exception {
        Recording invoker = new Recording();
        ReadWriteGate gate = new ReadWriteGate(loop, invoker);
        List<Boolean> paths = new ArrayList<>();
        onLoop(() -> {
            paths.add(gate.read(bytes("GET a"), o -> { }));
            gate.write(bytes("SET a 1"), o -> { });
            paths.add(gate.read(bytes("GET a"), o -> { }));
        });
        assertThat(paths).containsExactly(true, false);
    }

    @Test
    @DisplayName("an ordered operation of several steps is held behind queries as a write is, and reads wait behind it until it completes")
    void orderedOperationsAreGatedLikeWrites() throws Exception {
        Recording invoker = new Recording();
        ReadWriteGate gate = new ReadWriteGate(loop, invoker);
        List<Object> done = new ArrayList<>();
        CompletableFuture<String> operation = new CompletableFuture<>();
        List<String> ran = new ArrayList<>();
        onLoop(() -> {
            gate.read(bytes("GET a"), done::add);
            gate.order(() -> {
                ran.add("operation");
                return operation;
            }, done::add);
        });
        assertThat(ran).as("held behind the query").isEmpty();
        onLoop(() -> invoker.futures.get(0).complete(bytes("1")));
        onLoop(() -> { }); // the completion's hand-back ran
        assertThat(ran).containsExactly("operation");
        onLoop(() -> gate.read(bytes("GET b"), done::add));
        assertThat(invoker.sent).as("a read behind the operation in flight waits for it (a barrier)").hasSize(1);
        onLoop(() -> operation.complete("done"));
        onLoop(() -> { });
        assertThat(invoker.sent).as("then goes ordered").last().isEqualTo("ordered GET b");
        onLoop(() -> invoker.futures.get(1).complete(bytes("2")));
        onLoop(() -> gate.read(bytes("GET c"), done::add));
        assertThat(invoker.sent).last().isEqualTo("query GET c");
        assertThat(done).contains("done");
    }

    @Test
    @DisplayName("an operation that throws or returns no future fails its own reply only, and the gate goes on")
    void aFailingOperationFailsItsReplyOnly() throws Exception {
        Recording invoker = new Recording();
        ReadWriteGate gate = new ReadWriteGate(loop, invoker);
        List<Object> done = new ArrayList<>();
        onLoop(() -> {
            gate.order(() -> {
                throw new IllegalStateException("boom");
            }, done::add);
            gate.order(() -> null, done::add);
            gate.read(bytes("GET a"), done::add);
        });
        assertThat(done).hasSize(2).allSatisfy(o -> assertThat(o).isInstanceOf(RuntimeException.class));
        assertThat(invoker.sent).containsExactly("query GET a");
    }

    @Test
    @DisplayName("commands of one stream pipeline; one of another stream waits until the connection's commands in flight are answered")
    void anotherStreamWaitsForTheCommandsInFlight() throws Exception {
        Recording invoker = new Recording();
        ReadWriteGate gate = new ReadWriteGate(loop, invoker);
        List<Object> done = new ArrayList<>();
        onLoop(() -> {
            gate.write(bytes("SET a 1"), "p0", done::add);
            gate.write(bytes("SET b 1"), "p0", done::add);
            gate.write(bytes("SET c 1"), "p1", done::add);
            gate.write(bytes("SET d 1"), "p1", done::add);
        });
        assertThat(invoker.sent).as("one stream pipelines; the other is held").containsExactly("ordered SET a 1", "ordered SET b 1");
        onLoop(() -> invoker.futures.get(0).complete(bytes("OK")));
        onLoop(() -> { });
        assertThat(invoker.sent).as("held until every command of the other stream is answered").hasSize(2);
        onLoop(() -> invoker.futures.get(1).complete(bytes("OK")));
        onLoop(() -> { });
        assertThat(invoker.sent).as("then the held stream pipelines in turn")
                .containsExactly("ordered SET a 1", "ordered SET b 1", "ordered SET c 1", "ordered SET d 1");
        assertThat(done).hasSize(2);
    }

    @Test
    @DisplayName("held commands leave in the order sent: one of the stream in flight queued behind one of another stream waits too")
    void heldCommandsLeaveInOrder() throws Exception {
        Recording invoker = new Recording();
        ReadWriteGate gate = new ReadWriteGate(loop, invoker);
        onLoop(() -> {
            gate.write(bytes("SET a 1"), "p0", o -> { });
            gate.write(bytes("SET b 1"), "p0+p1", o -> { });
            gate.write(bytes("SET a 2"), "p0", o -> { });
            gate.read(bytes("GET a"), "p0", o -> { });
        });
        assertThat(invoker.sent).containsExactly("ordered SET a 1");
        onLoop(() -> invoker.futures.get(0).complete(bytes("OK")));
        onLoop(() -> { });
        assertThat(invoker.sent).containsExactly("ordered SET a 1", "ordered SET b 1");
        onLoop(() -> invoker.futures.get(1).complete(bytes("OK")));
        onLoop(() -> { });
        assertThat(invoker.sent).as("the read behind, ordered on its stream, pipelines with the write before it")
                .containsExactly("ordered SET a 1", "ordered SET b 1", "ordered SET a 2", "ordered GET a");
    }

    @Test
    @DisplayName("an ordered operation of several commands is a barrier: it leaves once all before it are answered, and all after it wait for it")
    void orderedOperationsAreBarriers() throws Exception {
        Recording invoker = new Recording();
        ReadWriteGate gate = new ReadWriteGate(loop, invoker);
        List<String> ran = new ArrayList<>();
        CompletableFuture<String> operation = new CompletableFuture<>();
        onLoop(() -> {
            gate.write(bytes("SET a 1"), "p0", o -> { });
            gate.order(() -> {
                ran.add("operation");
                return operation;
            }, o -> { });
            gate.write(bytes("SET a 2"), "p0", o -> { });
        });
        assertThat(ran).as("behind a write in flight, even of any stream").isEmpty();
        assertThat(invoker.sent).containsExactly("ordered SET a 1");
        onLoop(() -> invoker.futures.get(0).complete(bytes("OK")));
        onLoop(() -> { });
        assertThat(ran).containsExactly("operation");
        assertThat(invoker.sent).as("nothing leaves beside the barrier").containsExactly("ordered SET a 1");
        onLoop(() -> operation.complete("done"));
        onLoop(() -> { });
        assertThat(invoker.sent).containsExactly("ordered SET a 1", "ordered SET a 2");
    }

    @Test
    @DisplayName("a stream is a key: equal keys are one stream; a null key is refused")
    void streamsAreKeys() throws Exception {
        Recording invoker = new Recording();
        ReadWriteGate gate = new ReadWriteGate(loop, invoker);
        onLoop(() -> {
            gate.write(bytes("SET a 1"), new String("p0"), o -> { });
            gate.write(bytes("SET b 1"), new String("p0"), o -> { });
        });
        assertThat(invoker.sent).hasSize(2);
        onLoop(() -> org.assertj.core.api.Assertions.assertThatNullPointerException()
                .isThrownBy(() -> gate.write(bytes("SET c 1"), null, o -> { })));
        onLoop(() -> org.assertj.core.api.Assertions.assertThatNullPointerException()
                .isThrownBy(() -> gate.read(bytes("GET c"), null, o -> { })));
        assertThat(invoker.sent).hasSize(2);
    }
}
