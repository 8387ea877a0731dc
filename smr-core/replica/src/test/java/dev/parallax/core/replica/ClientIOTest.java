package dev.parallax.core.replica;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.GroupSet;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.wire.ClientWire;
import dev.parallax.core.wire.Frames;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.wire.NetMetrics;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Queues;
import dev.parallax.core.testkit.Await;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ClientIO's protection of the replica from its clients, against a real socket and a stand-in
 * executor that answers every request at once: a client that pipelines and never reads holds a
 * bounded amount of reply memory, and a half-sent frame does not hold its connection forever.
 */
class ClientIOTest {
    private static final int LOW = 16 << 10;
    private static final int HIGH = 64 << 10;
    private static final int REPLY_BYTES = 512;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final BoundedQueue<Command> requests = Queues.mpsc(64);
    private final ReplyRouter router = new ReplyRouter();
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong maxPending = new AtomicLong();
    private final java.util.Queue<Command> seen = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private volatile boolean running = true;
    private ClientIO io;
    private Thread executor;
    private int port;

    private void start(Duration partialFrameTimeout) {
        start(partialFrameTimeout, () -> 0);
    }

    private void start(Duration partialFrameTimeout, java.util.function.IntSupplier leader) {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(1));
        ReplicaConfig config = ReplicaConfig.builder().id(0).members(members)
                .clientMembers(ClusterMembers.parse(LocalPorts.endpoints(1))).clientIoThreads(1)
                .clientWriteBufferWaterMarks(LOW, HIGH).partialFrameTimeout(partialFrameTimeout).build();
        io = new ClientIO(config, requests, leader, router, null, new NetMetrics(registry, "client"));
        port = io.start();
        io.registerMeters(registry);
        executor = new Thread(this::answerAll, "stand-in-executor");
        executor.start();
    }

    /** Answers each request with REPLY_BYTES bytes that start with its sequence number. */
    private void answerAll() {
        while (running) {
            Command c = requests.poll();
            if (c == null) {
                LockSupport.parkNanos(50_000);
                continue;
            }
            seen.add(c);
            ByteBuffer reply = ByteBuffer.allocate(REPLY_BYTES);
            reply.putLong(0, c.id().sequence());
            // Counted before the reply goes out: a test that has read a reply finds it counted.
            answered.incrementAndGet();
            router.reply(c.id(), CommandResult.ok(reply));
            maxPending.accumulateAndGet(io.pendingReplyBytes(), Math::max);
        }
    }

    @AfterEach
    void stop() throws InterruptedException {
        running = false;
        if (executor != null) {
            executor.join();
        }
        if (io != null) {
            io.close();
        }
    }

    private Socket connect(int receiveBuffer) throws IOException {
        Socket s = new Socket();
        if (receiveBuffer > 0) {
            s.setReceiveBufferSize(receiveBuffer);
        }
        s.connect(new InetSocketAddress("127.0.0.1", port));
        s.setSoTimeout(20_000);
        return s;
    }

    private static byte[] requests(long clientId, long fromSeq, int count) {
        ByteBuf b = Unpooled.buffer();
        for (int i = 0; i < count; i++) {
            ClientWire.writeRequest(b, clientId, fromSeq + i, ByteBuffer.wrap(new byte[]{'x'}));
        }
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        return out;
    }

    private static ClientWire.Reply readReply(DataInputStream in) throws IOException {
        int length = in.readInt();
        byte[] frame = new byte[length];
        in.readFully(frame);
        ByteBuf b = Unpooled.wrappedBuffer(frame);
        return ClientWire.readReply(Frames.readType(b), b);
    }

    private static void awaitTrue(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waiting for " + what).isNegative();
            LockSupport.parkNanos(1_000_000);
        }
    }

    private double gauge(String name) {
        return registry.find(name).gauge().value();
    }

    @Test
    void aClientThatPipelinesAndNeverReadsHoldsBoundedReplyMemoryAndGetsEveryReplyInOrder() throws Exception {
        start(ReplicaConfig.DEFAULT_PARTIAL_FRAME_TIMEOUT);
        int n = 40_000;
        // Unbounded, the replies would pile up to n * ~530 B = ~21 MB minus what the kernel buffers hold.
        try (Socket greedy = connect(4096)) {
            byte[] all = requests(7, 1, n);
            OutputStream out = greedy.getOutputStream();
            Thread writer = new Thread(() -> {
                try {
                    out.write(all);
                    out.flush();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }, "greedy-writer");
            writer.start();

            // The connection stalls and resumes while the kernel's socket buffers still take bytes;
            // wait until they are full and it stays stalled (no reply answered for 100 ms).
            long[] seen = {-1};
            awaitTrue("the greedy connection to stay stalled", () -> {
                long before = seen[0];
                seen[0] = answered.get();
                if (before == seen[0] && io.writeStalledConnections() == 1 && requests.isEmpty()) {
                    return true;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                return false;
            });
            assertThat(gauge("parallax.client.connections.write.stalled")).isEqualTo(1.0);

            // Another client is served meanwhile; its reply also proves the executor has answered
            // everything queued before it.
            try (Socket polite = connect(0)) {
                polite.getOutputStream().write(requests(8, 1, 1));
                ClientWire.Reply r = readReply(new DataInputStream(polite.getInputStream()));
                assertThat(r.status()).isEqualTo(ClientWire.OK);
                assertThat(r.sequence()).isEqualTo(1);
            }
            long answeredWhileStalled = answered.get();
            assertThat(answeredWhileStalled).as("the replica stopped reading the greedy client").isLessThan(n);
            long pendingWhileStalled = io.pendingReplyBytes();
            assertThat(pendingWhileStalled).isGreaterThan(LOW);
            // The event loop may still move bytes into the socket between two reads: wait until the
            // gauge and the figure agree on one reading (both are the same counter, read twice).
            Await.until(Duration.ofSeconds(10), () -> gauge("parallax.client.pending.reply.bytes") == io.pendingReplyBytes(),
                    () -> "the pending-bytes gauge to read the pending bytes");
            assertThat(gauge("parallax.client.pending.reply.bytes")).isGreaterThan(LOW);
            assertThat(io.writeStalledConnections()).isEqualTo(1);

            DataInputStream in = new DataInputStream(greedy.getInputStream());
            for (long seq = 1; seq <= n; seq++) {
                ClientWire.Reply r = readReply(in);
                assertThat(r.status()).isEqualTo(ClientWire.OK);
                assertThat(r.sequence()).isEqualTo(seq);
                assertThat(r.payload().getLong(0)).isEqualTo(seq);
            }
            writer.join();
        }
        // High mark, plus replies to the requests read before reading stopped: the RequestQueue
        // (64) and what one event-loop read cycle took (up to 16 socket reads of 64 KiB; on a
        // loaded machine the executor may answer all of them before the loop sees the channel
        // unwritable). Unbounded, ~21 MB would pile up.
        assertThat(maxPending.get()).as("most reply bytes pending at once").isLessThan(6L << 20);
        assertThat(answered.get()).isEqualTo(n + 1);
    }

    @Test
    void everyReplyByteWrittenToAClientIsCounted() throws Exception {
        start(ReplicaConfig.DEFAULT_PARTIAL_FRAME_TIMEOUT);
        long received = 0;
        try (Socket s = connect(0)) {
            s.getOutputStream().write(requests(3, 1, 10));
            DataInputStream in = new DataInputStream(s.getInputStream());
            for (int i = 0; i < 10; i++) {
                int length = in.readInt();
                in.readFully(new byte[length]);
                received += 4 + length;
            }
        }
        assertThat(received).isGreaterThan(10L * REPLY_BYTES);
        assertThat(io.bytesSent()).isEqualTo(received);
        assertThat(registry.find("parallax.client.bytes.sent").tag("replica", "0").functionCounter().count())
                .isEqualTo((double) received);
    }

    @Test
    void redirectsAreCountedAndAReplicaThatTakesEveryRequestCountsNone() throws Exception {
        int[] leader = {1};
        start(ReplicaConfig.DEFAULT_PARTIAL_FRAME_TIMEOUT, () -> leader[0]);
        try (Socket s = connect(0)) {
            s.getOutputStream().write(requests(4, 1, 3));
            DataInputStream in = new DataInputStream(s.getInputStream());
            for (int i = 0; i < 3; i++) {
                assertThat(readReply(in).status()).isEqualTo(ClientWire.REDIRECT);
            }
            assertThat(io.redirects()).isEqualTo(3);
            // As S-Paxos: redirectHint() is ANY_REPLICA, every request is taken here.
            leader[0] = dev.parallax.core.spi.AtomicBroadcast.ANY_REPLICA;
            s.getOutputStream().write(requests(4, 1, 2));
            for (int i = 0; i < 2; i++) {
                assertThat(readReply(in).status()).isEqualTo(ClientWire.OK);
            }
        }
        assertThat(io.redirects()).isEqualTo(3);
        assertThat(registry.find("parallax.client.redirects").tag("replica", "0").functionCounter().count()).isEqualTo(3.0);
    }

    @Test
    void aPartialFrameOlderThanTheTimeoutClosesItsConnectionButIdleConnectionsStayOpen() throws Exception {
        long timeoutMillis = 300;
        start(Duration.ofMillis(timeoutMillis));
        try (Socket idle = connect(0); Socket half = connect(0)) {
            DataInputStream idleIn = new DataInputStream(idle.getInputStream());
            idle.getOutputStream().write(requests(1, 1, 1));
            assertThat(readReply(idleIn).sequence()).isEqualTo(1);

            long start = System.nanoTime();
            byte[] request = requests(2, 1, 1);
            half.getOutputStream().write(request, 0, request.length - 3);
            assertThat(half.getInputStream().read()).as("closed by the replica").isEqualTo(-1);
            long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(waitedMillis).isGreaterThanOrEqualTo(timeoutMillis - 50);
            assertThat(registry.find("parallax.net.stale.partial.frames").tag("kind", "client").counter().count())
                    .isEqualTo(1.0);

            // Idle for longer than the timeout, but with no partial frame: still served.
            idle.getOutputStream().write(requests(1, 2, 1));
            assertThat(readReply(idleIn).sequence()).isEqualTo(2);
        }
        assertThat(registry.find("parallax.net.bad.frames").tag("kind", "client").counter().count()).isZero();
    }

    @Test
    void requestsToGroupsBecomeCommandsWithThoseGroupsAndTheirRepliesNameTheStream() throws Exception {
        start(ReplicaConfig.DEFAULT_PARTIAL_FRAME_TIMEOUT);
        GroupSet g = GroupSet.of(4, 9);
        ByteBuf b = Unpooled.buffer();
        ClientWire.writeRequest(b, new CommandId(5, g, 1), ByteBuffer.wrap(new byte[]{'x'}));
        // An old REQUEST frame, built by hand: clientId:8 sequence:8 length:4 payload.
        Frames.writeHeader(b, ClientWire.REQUEST, 21);
        b.writeLong(5).writeLong(1).writeInt(1).writeByte('y');
        byte[] bytes = new byte[b.readableBytes()];
        b.readBytes(bytes);
        try (Socket s = connect(0)) {
            s.getOutputStream().write(bytes);
            DataInputStream in = new DataInputStream(s.getInputStream());
            ClientWire.Reply first = readReply(in);
            ClientWire.Reply second = readReply(in);
            assertThat(first.groups()).isEqualTo(g);
            assertThat(first.sequence()).isEqualTo(1);
            assertThat(second.groups()).isEqualTo(GroupSet.DEFAULT);
            assertThat(second.sequence()).isEqualTo(1);
        }
        assertThat(seen).extracting(Command::id).containsExactly(new CommandId(5, g, 1), new CommandId(5, 1));
        assertThat(seen).extracting(c -> c.payload().get(0)).containsExactly((byte) 'x', (byte) 'y');
    }

    @Test
    void aRequestNamingAnEmptyGroupSetClosesItsConnectionAsABadFrame() throws Exception {
        start(ReplicaConfig.DEFAULT_PARTIAL_FRAME_TIMEOUT);
        ByteBuf b = Unpooled.buffer();
        Frames.writeHeader(b, ClientWire.GROUP_REQUEST, 29);
        b.writeLong(5).writeLong(1).writeLong(0).writeInt(1).writeByte('x');
        byte[] bytes = new byte[b.readableBytes()];
        b.readBytes(bytes);
        try (Socket s = connect(0)) {
            s.getOutputStream().write(bytes);
            assertThat(s.getInputStream().read()).as("closed by the replica").isEqualTo(-1);
        }
        assertThat(registry.find("parallax.net.bad.frames").tag("kind", "client").counter().count()).isEqualTo(1.0);
        assertThat(seen).isEmpty();
    }
}
