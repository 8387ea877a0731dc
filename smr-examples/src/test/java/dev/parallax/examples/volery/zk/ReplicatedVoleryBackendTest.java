package dev.parallax.examples.volery.zk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.OutcomeUnknownException;
import dev.parallax.examples.volery.Create;
import dev.parallax.examples.volery.CreateMode;
import dev.parallax.examples.volery.Exists;
import dev.parallax.examples.volery.GetChildren;
import dev.parallax.examples.volery.GetData;
import dev.parallax.examples.volery.SetData;
import dev.parallax.examples.volery.Stat;
import dev.parallax.examples.volery.VoleryCommand;
import dev.parallax.examples.volery.Watcher;
import dev.parallax.examples.volery.ZkCode;
import dev.parallax.examples.volery.ZkReply;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link ReplicatedVoleryBackend}'s lanes: a session's reads that set no watch go as queries only
 * where ZooKeeper's FIFO order of the session allows (the discipline of {@code ReadWriteGateTest}).
 */
class ReplicatedVoleryBackendTest {
    private static final Stat STAT = new Stat(1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1);
    private final EventLoop loop = new DefaultEventLoop();
    private final Recording invoker = new Recording();
    private final ReplicatedVoleryBackend backend = new ReplicatedVoleryBackend(invoker, () -> 1234L);
    private final List<Boolean> reads = new CopyOnWriteArrayList<>();
    private VoleryBackend.Lane lane;

    /** Records what was sent how (as the decoded command), and lets the test complete each call. */
    private static final class Recording implements CommandInvoker {
        final List<String> sent = new CopyOnWriteArrayList<>();
        final List<VoleryCommand> commands = new CopyOnWriteArrayList<>();
        final List<CompletableFuture<ByteBuffer>> futures = new CopyOnWriteArrayList<>();

        @Override
        public CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
            return record("ordered", command);
        }

        @Override
        public CompletableFuture<ByteBuffer> query(ByteBuffer query) {
            return record("query", query);
        }

        private CompletableFuture<ByteBuffer> record(String how, ByteBuffer bytes) {
            VoleryCommand c = VoleryCommand.decode(bytes).command();
            commands.add(c);
            sent.add(how + " " + c.getClass().getSimpleName() + " " + c.path());
            CompletableFuture<ByteBuffer> f = new CompletableFuture<>();
            futures.add(f);
            return f;
        }

        void answer(int index, ZkReply reply) {
            futures.get(index).complete(ByteBuffer.wrap(reply.encode()));
        }
    }

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private <T> T onLoop(Callable<T> call) throws Exception {
        return loop.submit(call).get(10, TimeUnit.SECONDS);
    }

    private void onLoop(Runnable r) throws Exception {
        loop.submit(r).get(10, TimeUnit.SECONDS);
    }

    private CompletableFuture<ZkReply> submit(VoleryCommand c) throws Exception {
        if (lane == null) {
            lane = onLoop(() -> backend.lane(loop, reads::add));
        }
        return onLoop(() -> lane.submit(c));
    }

    @Test
    @DisplayName("a session's read after its write still in flight waits behind it (ordered); once answered, reads are queries again")
    void aReadBehindAWriteInFlightIsOrdered() throws Exception {
        CompletableFuture<ZkReply> set = submit(new SetData("/a", new byte[] {1}, -1));
        CompletableFuture<ZkReply> get = submit(new GetData("/a"));
        assertThat(invoker.sent).containsExactly("ordered SetData /a", "ordered GetData /a");
        assertThat(reads).containsExactly(false);
        invoker.answer(0, ZkReply.ok().withZxid(5));
        invoker.answer(1, ZkReply.data(new byte[] {1}, STAT).withZxid(5));
        assertThat(set.get(10, TimeUnit.SECONDS).zxid()).isEqualTo(5);
        assertThat(get.get(10, TimeUnit.SECONDS).data()).containsExactly(1);
        onLoop(() -> { }); // the completions' hand-backs ran
        submit(new Exists("/a"));
        submit(new GetChildren("/"));
        assertThat(invoker.sent).endsWith("query Exists /a", "query GetChildren /");
        assertThat(reads).containsExactly(false, true, true);
    }

    @Test
    @DisplayName("a session's write behind its query in flight is held until the query is answered, and what follows waits in order")
    void aWriteBehindAQueryInFlightWaits() throws Exception {
        CompletableFuture<ZkReply> get = submit(new GetData("/a"));
        CompletableFuture<ZkReply> set = submit(new SetData("/a", new byte[] {2}, -1));
        CompletableFuture<ZkReply> getAgain = submit(new GetData("/a"));
        assertThat(invoker.sent).as("the write and the read after it are held").containsExactly("query GetData /a");
        assertThat(set).isNotDone();
        invoker.answer(0, ZkReply.data(new byte[] {1}, STAT));
        assertThat(get.get(10, TimeUnit.SECONDS).data()).containsExactly(1);
        ZkTesting.await("the held write sent", () -> invoker.sent.size() == 3);
        assertThat(invoker.sent).containsExactly("query GetData /a", "ordered SetData /a", "ordered GetData /a");
        assertThat(((SetData) invoker.commands.get(1)).time()).as("stamped with the front end's clock").isEqualTo(1234L);
        invoker.answer(1, ZkReply.ok());
        invoker.answer(2, ZkReply.data(new byte[] {2}, STAT));
        assertThat(set.get(10, TimeUnit.SECONDS).isOk()).isTrue();
        assertThat(getAgain.get(10, TimeUnit.SECONDS).data()).containsExactly(2);
    }

    @Test
    @DisplayName("a read that sets a watch is ordered even with nothing in flight, and the session's next read waits behind it")
    void watchSettingReadsAreOrdered() throws Exception {
        Watcher w = new Watcher(3, 9);
        submit(new GetData("/a", w));
        submit(new Exists("/b", w));
        submit(new GetChildren("/", w));
        submit(new GetData("/c"));
        assertThat(invoker.sent).containsExactly("ordered GetData /a", "ordered Exists /b", "ordered GetChildren /",
                "ordered GetData /c");
        assertThat(reads).as("only reads without a watch are told").containsExactly(false);
    }

    @Test
    @DisplayName("a watch registration (an ordered operation of the session) waits for the session's queries, and the reads behind it wait for it")
    void orderedOperationsTakePartInTheOrder() throws Exception {
        submit(new GetData("/a"));
        List<String> ran = new ArrayList<>();
        CompletableFuture<String> registration = new CompletableFuture<>();
        CompletableFuture<String> result = onLoop(() -> lane.order(() -> {
            ran.add("addWatch");
            return registration;
        }));
        assertThat(ran).as("held behind the query").isEmpty();
        invoker.answer(0, ZkReply.data(new byte[0], STAT));
        ZkTesting.await("the registration ran", () -> onLoopQuietly(() -> ran.size() == 1));
        submit(new GetData("/a"));
        assertThat(invoker.sent).as("a barrier: the read waits for the registration").hasSize(1);
        registration.complete("ok");
        assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("ok");
        ZkTesting.await("the read sent", () -> invoker.sent.size() == 2);
        assertThat(invoker.sent).last().isEqualTo("ordered GetData /a");
    }

    @Test
    @DisplayName("failures pass through: a query that fails fails its read only, a garbage reply is MARSHALLINGERROR, and the session goes on")
    void failuresPassThrough() throws Exception {
        CompletableFuture<ZkReply> get = submit(new GetData("/a"));
        invoker.futures.get(0).completeExceptionally(new OutcomeUnknownException("no answer"));
        assertThat(get).failsWithin(10, TimeUnit.SECONDS).withThrowableThat().withRootCauseInstanceOf(OutcomeUnknownException.class);
        CompletableFuture<ZkReply> broken = submit(new GetData("/b"));
        ZkTesting.await("the next read sent", () -> invoker.sent.size() == 2);
        invoker.futures.get(1).complete(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        assertThat(broken.get(10, TimeUnit.SECONDS).code()).as("an undecodable reply").isEqualTo(ZkCode.MARSHALLINGERROR);
        submit(new Create("/c", new byte[0], CreateMode.PERSISTENT));
        assertThat(invoker.sent).last().isEqualTo("ordered Create /c");
    }

    @Test
    @DisplayName("the backend's own query sends a read without a watch as a query and anything else ordered")
    void backendQuery() throws Exception {
        CompletableFuture<ZkReply> read = backend.query(new GetData("/a"));
        backend.query(new GetData("/a", new Watcher(1, 1)));
        backend.query(new SetData("/a", new byte[0], -1));
        assertThat(invoker.sent).containsExactly("query GetData /a", "ordered GetData /a", "ordered SetData /a");
        invoker.answer(0, ZkReply.error(ZkCode.NONODE).withZxid(7));
        assertThat(read.get(10, TimeUnit.SECONDS)).isEqualTo(ZkReply.error(ZkCode.NONODE).withZxid(7));
    }

    private boolean onLoopQuietly(Callable<Boolean> condition) {
        try {
            return onLoop(condition);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
