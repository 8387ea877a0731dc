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

/** {@link ReadWriteGate}: a connection's reads go as queries only where its pipeline's order allows. */
class ReadWriteGateTest {
    private final EventLoop loop = new DefaultEventLoop();

    /** Records what was sent how, and lets the test complete each call. */
    private static final class Recording implements CommandInvoker {
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
        assertThat(invoker.sent).as("a read behind the operation in flight is ordered").last().isEqualTo("ordered GET b");
        onLoop(() -> operation.complete("done"));
        onLoop(() -> { });
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
}
