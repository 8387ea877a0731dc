package dev.parallax.examples.volery.zk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parallax.core.client.CommandInvoker;
import dev.parallax.examples.volery.Create;
import dev.parallax.examples.volery.CreateMode;
import dev.parallax.examples.volery.Delete;
import dev.parallax.examples.volery.GetData;
import dev.parallax.examples.volery.SetData;
import dev.parallax.examples.volery.VoleryCommand;
import dev.parallax.examples.volery.VoleryOracle;
import dev.parallax.examples.volery.Watcher;
import dev.parallax.examples.volery.ZkReply;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link ReplicatedVoleryBackend}'s lanes over two partitions keep ZooKeeper's FIFO order of a
 * session across partitions: a command's stream is its destination set (the invoker's, here as a
 * PartitionedInvoker's {@link VoleryOracle} names it, seed
 * 004 (S-SMR) §V-B), so commands to one set pipeline, and one to another set is sent only once the
 * session's commands in flight are answered (they would travel another ring and could execute after it).
 */
class ReplicatedVoleryBackendFifoTest {
    private final EventLoop loop = new DefaultEventLoop();
    private final Recording invoker = new Recording();
    private final ReplicatedVoleryBackend backend = new ReplicatedVoleryBackend(invoker, () -> 1L, 2);

    /** Records what was sent how, and lets the test complete each call. */
    private static final class Recording implements CommandInvoker {
        final List<String> sent = new CopyOnWriteArrayList<>();
        final List<CompletableFuture<ByteBuffer>> futures = new CopyOnWriteArrayList<>();

        @Override
        public CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
            return record("ordered", command);
        }

        @Override
        public CompletableFuture<ByteBuffer> query(ByteBuffer query) {
            return record("query", query);
        }

        /** The destination set, as a {@code PartitionedInvoker} over {@link VoleryOracle} names it. */
        @Override
        public dev.parallax.core.GroupSet stream(ByteBuffer command) {
            return new VoleryOracle(2).route(command);
        }

        @Override
        public CompletableFuture<ByteBuffer> invoke(dev.parallax.core.GroupSet groups, ByteBuffer command) {
            return record("ordered", command);
        }

        private CompletableFuture<ByteBuffer> record(String how, ByteBuffer bytes) {
            VoleryCommand c = VoleryCommand.decode(bytes).command();
            sent.add(how + " " + c.getClass().getSimpleName() + " " + c.path());
            CompletableFuture<ByteBuffer> f = new CompletableFuture<>();
            futures.add(f);
            return f;
        }

        void answer(int index) {
            futures.get(index).complete(ByteBuffer.wrap(ZkReply.ok().encode()));
        }
    }

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** The first path /n&lt;i&gt; owned by partition {@code p} of two, skipping {@code skip}. */
    private static String ownedBy(int p, int skip) {
        return IntStream.range(0, 100).mapToObj(i -> "/n" + i).filter(path -> VoleryOracle.partitionOf(path, 2) == p)
                .skip(skip).findFirst().orElseThrow();
    }

    @Test
    @DisplayName("seed 004 §V-B: setData to one partition pipeline; one to the other partition, or a create (every partition), "
            + "waits until the session's commands in flight are answered; the order sent is kept")
    void commandsToAnotherPartitionSetWait() throws Exception {
        String a = ownedBy(0, 0);
        String a2 = ownedBy(0, 1);
        String b = ownedBy(1, 0);
        VoleryBackend.Lane lane = loop.submit(() -> backend.lane(loop, asQuery -> { })).get(10, TimeUnit.SECONDS);
        List<CompletableFuture<ZkReply>> replies = loop.submit(() -> List.of(
                lane.submit(new SetData(a, new byte[] {1}, -1)),
                lane.submit(new SetData(a2, new byte[] {1}, -1)),
                lane.submit(new SetData(b, new byte[] {1}, -1)),
                lane.submit(new GetData(b, new Watcher(1, 1))),
                lane.submit(new Create("/c", new byte[0], CreateMode.PERSISTENT)),
                lane.submit(new Delete("/c", -1)),
                lane.submit(new GetData(a)))).get(10, TimeUnit.SECONDS);
        assertThat(invoker.sent).as("partition 0's pipeline").containsExactly("ordered SetData " + a, "ordered SetData " + a2);
        invoker.answer(1);
        loop.submit(() -> { }).get(10, TimeUnit.SECONDS);
        assertThat(invoker.sent).as("partition 1 waits for all of partition 0's in flight").hasSize(2);
        invoker.answer(0);
        ZkTesting.await("partition 1's pipeline sent", () -> invoker.sent.size() == 4);
        assertThat(invoker.sent.subList(2, 4)).containsExactly("ordered SetData " + b, "ordered GetData " + b);
        invoker.answer(2);
        invoker.answer(3);
        ZkTesting.await("the global commands sent", () -> invoker.sent.size() == 6);
        assertThat(invoker.sent.subList(4, 6)).as("create and delete: every partition, one stream")
                .containsExactly("ordered Create /c", "ordered Delete /c");
        invoker.answer(4);
        invoker.answer(5);
        ZkTesting.await("the read sent", () -> invoker.sent.size() == 7);
        assertThat(invoker.sent.get(6)).as("a read behind ordered commands is ordered on its owner's stream")
                .isEqualTo("ordered GetData " + a);
        invoker.answer(6);
        for (CompletableFuture<ZkReply> r : replies) {
            assertThat(r.get(10, TimeUnit.SECONDS).isOk()).isTrue();
        }
    }
}
