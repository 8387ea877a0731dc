package dev.parallax.core.replica;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.config.ReplicaKeys;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Queues;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.wire.ClientWire;
import dev.parallax.core.wire.Frames;
import dev.parallax.core.wire.NetMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The client port's connection limit ({@code client.max.connections}), against real sockets and a
 * stand-in executor: up to the limit every connection is served, the one beyond is closed at once
 * and counted ({@code parallax.client.connections.refused}), the open connections are a gauge
 * ({@code parallax.client.connections.open}), a closed connection frees its place, and the count
 * stays exact when many clients connect at once over several event loops.
 */
class ClientIOConnectionLimitTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final BoundedQueue<Command> requests = Queues.mpsc(256);
    private final ReplyRouter router = new ReplyRouter();
    private final List<Socket> sockets = new ArrayList<>();
    private volatile boolean running = true;
    private ClientIO io;
    private Thread executor;
    private int port;

    private void start(int maxConnections, int ioThreads) {
        ReplicaConfig config = ReplicaConfig.builder().id(0).members(ClusterMembers.parse(LocalPorts.endpoints(1)))
                .clientMembers(ClusterMembers.parse(LocalPorts.endpoints(1))).clientIoThreads(ioThreads)
                .clientMaxConnections(maxConnections).build();
        io = new ClientIO(config, requests, () -> 0, router, null, new NetMetrics(registry, "client"));
        port = io.start();
        io.registerMeters(registry);
        executor = new Thread(() -> {
            while (running) {
                Command c = requests.poll();
                if (c == null) {
                    LockSupport.parkNanos(50_000);
                    continue;
                }
                router.reply(c.id(), CommandResult.ok(c.payload()));
            }
        }, "stand-in-executor");
        executor.start();
    }

    @AfterEach
    void stop() throws Exception {
        for (Socket s : sockets) {
            s.close();
        }
        running = false;
        if (executor != null) {
            executor.join();
        }
        if (io != null) {
            io.close();
        }
    }

    private Socket connect() throws IOException {
        Socket s = new Socket();
        synchronized (sockets) {
            sockets.add(s);
        }
        s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        s.setSoTimeout(20_000);
        return s;
    }

    /** Whether {@code s} is served: a request gets its reply. False if the replica closed it. */
    private static boolean served(Socket s, long clientId) throws IOException {
        ByteBuf b = Unpooled.buffer();
        ClientWire.writeRequest(b, clientId, 1, ByteBuffer.wrap(new byte[] {'x'}));
        byte[] request = new byte[b.readableBytes()];
        b.readBytes(request);
        try {
            s.getOutputStream().write(request);
            DataInputStream in = new DataInputStream(s.getInputStream());
            int length = in.readInt();
            byte[] frame = new byte[length];
            in.readFully(frame);
            ByteBuf f = Unpooled.wrappedBuffer(frame);
            ClientWire.Reply r = ClientWire.readReply(Frames.readType(f), f);
            return r.status() == ClientWire.OK && r.sequence() == 1;
        } catch (java.io.EOFException | SocketException closed) {
            return false;
        }
    }

    /** Whether the replica closes {@code s} without a byte (end of stream or a reset). */
    private static boolean closedByReplica(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        try {
            return in.read() == -1;
        } catch (SocketException reset) {
            return true;
        }
    }

    private double open() {
        return registry.find("parallax.client.connections.open").tag("replica", "0").gauge().value();
    }

    private double refused() {
        return registry.find("parallax.client.connections.refused").tag("replica", "0").functionCounter().count();
    }

    @Test
    void theDefaultIsDocumentedInTheKey() {
        assertThat(ReplicaConfig.builder().id(0).members(ClusterMembers.parse(LocalPorts.endpoints(1))).build()
                .clientMaxConnections()).isEqualTo(ReplicaKeys.CLIENT_MAX_CONNECTIONS.defaultValue()).isEqualTo(4096);
    }

    @Test
    void theConnectionBeyondTheLimitIsClosedAndCountedAndAClosedOneFreesItsPlace() throws Exception {
        start(3, 1);
        List<Socket> admitted = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Socket s = connect();
            assertThat(served(s, 100 + i)).as("connection " + i + " is served").isTrue();
            admitted.add(s);
        }
        assertThat(open()).isEqualTo(3);
        assertThat(refused()).isZero();

        Socket fourth = connect();
        assertThat(closedByReplica(fourth)).as("the fourth connection is closed").isTrue();
        Await.until(Duration.ofSeconds(10), () -> refused() == 1, () -> "the refusal to be counted, got " + refused());
        assertThat(open()).as("a refused connection is never counted open").isEqualTo(3);
        for (int i = 0; i < 3; i++) {
            assertThat(served(admitted.get(i), 200 + i)).as("connection " + i + " is still served").isTrue();
        }

        admitted.get(1).close();
        Await.until(Duration.ofSeconds(10), () -> open() == 2, () -> "the closed connection to free its place, open " + open());
        Socket again = connect();
        assertThat(served(again, 300)).as("a new connection takes the freed place").isTrue();
        assertThat(open()).isEqualTo(3);
        assertThat(refused()).isEqualTo(1);
    }

    @Test
    void theCountStaysExactWhenManyClientsConnectAtOnce() throws Exception {
        int limit = 5;
        int clients = 40;
        start(limit, 3);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<CompletableFuture<Boolean>> outcomes = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                long id = 1000 + i;
                outcomes.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return served(connect(), id);
                    } catch (IOException e) {
                        return false;
                    }
                }, pool));
            }
            int servedCount = 0;
            for (CompletableFuture<Boolean> o : outcomes) {
                if (o.get(60, TimeUnit.SECONDS)) {
                    servedCount++;
                }
            }
            assertThat(servedCount).as("connections served").isEqualTo(limit);
            Await.until(Duration.ofSeconds(10), () -> refused() == clients - limit,
                    () -> "every refusal to be counted, got " + refused());
            assertThat(open()).isEqualTo(limit);
        } finally {
            pool.shutdownNow();
        }
        synchronized (sockets) {
            for (Socket s : sockets) {
                s.close();
            }
        }
        Await.until(Duration.ofSeconds(10), () -> open() == 0, () -> "every connection to be released, open " + open());
    }
}
