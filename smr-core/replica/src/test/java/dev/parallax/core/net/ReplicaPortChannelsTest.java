package dev.parallax.core.net;

import dev.parallax.core.testkit.TextCodec;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.liveness.PeerLiveness;
import dev.parallax.core.spi.ByteBufferWire;
import dev.parallax.core.spi.MalformedMessageException;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.spi.WireReader;
import dev.parallax.core.spi.WireWriter;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Several protocol instances share one replica port through named channels: messages reach the
 * channel of the same name at the peer whatever order the channels were opened in, a channel the
 * peer does not run is dropped and counted without disturbing the others, and every frame stamps
 * the sender's liveness whatever its channel.
 */
class ReplicaPortChannelsTest {
    private final ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(2));
    private final List<AutoCloseable> open = new ArrayList<>();

    /** Longs, type 7: a codec different from the other channel's. */
    private static final MessageCodec<Long> LONGS = new MessageCodec<>() {
        @Override
        public int type(Long message) {
            return 7;
        }

        @Override
        public void encode(Long message, WireWriter out) {
            out.putLong(message);
        }

        @Override
        public Long decode(int type, WireReader body) {
            if (type != 7) {
                throw new MalformedMessageException("type " + type);
            }
            long v = body.getLong();
            body.end();
            return v;
        }
    };

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private record Port(ReplicaPort port, SimpleMeterRegistry registry) {
    }

    private Port port(int id) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        StageThreads threads = StageThreads.builder(dev.parallax.core.stage.ThreadPlacement.STAGED).meterRegistry(registry).build();
        ReplicaPort p = new ReplicaPort(ReplicaConfig.builder().id(id).members(members).build(), registry, threads,
                SystemClock.INSTANCE);
        open.add(threads);
        open.add(p);
        return new Port(p, registry);
    }

    /** Sends until {@code arrived} holds: messages sent before the connection is up are dropped. */
    private static void sendUntil(Runnable send, BooleanSupplier arrived) throws InterruptedException {
        Await.until(Duration.ofSeconds(20), () -> {
            if (arrived.getAsBoolean()) {
                return true;
            }
            send.run();
            return false;
        }, () -> "the probe to arrive");
    }

    /**
     * The next message in {@code queue} other than {@code probe} (null after 20 s): {@link #sendUntil}
     * may have sent several probes that are still on their way when it returns, so a probe can arrive
     * after the queue was cleared. Each channel is in order on the one connection, so no probe comes
     * after the first message sent after them.
     */
    private static <T> T nextOtherThan(T probe, BlockingQueue<T> queue) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            T m = queue.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (m == null || !m.equals(probe)) {
                return m;
            }
        }
    }

    @Test
    void channelsAreMatchedByNameWhateverTheOrderTheyWereOpenedIn() throws InterruptedException {
        Port a = port(0);
        Port b = port(1);
        Transport<String> aText = a.port().channel("text", TextCodec.INSTANCE);
        Transport<Long> aNumbers = a.port().channel("numbers", LONGS);
        Transport<Long> bNumbers = b.port().channel("numbers", LONGS); // opened first at b: another number
        Transport<String> bText = b.port().channel("text", TextCodec.INSTANCE);
        BlockingQueue<String> texts = new LinkedBlockingQueue<>();
        BlockingQueue<Long> numbers = new LinkedBlockingQueue<>();
        aText.start((from, m) -> { });
        aNumbers.start((from, m) -> { });
        bText.start((from, m) -> texts.add(from + ":" + m));
        bNumbers.start((from, m) -> numbers.add(m));

        sendUntil(() -> aText.send(1, "hello"), () -> !texts.isEmpty());
        sendUntil(() -> aNumbers.send(1, -1L), () -> !numbers.isEmpty());
        assertThat(texts.poll()).isEqualTo("0:hello");
        assertThat(numbers.poll()).isEqualTo(-1L);
        // Once connected, both channels carry traffic side by side, each in order.
        texts.clear();
        numbers.clear();
        for (long i = 0; i < 100; i++) {
            assertThat(aNumbers.send(1, i)).isTrue();
            assertThat(aText.send(1, "m" + i)).isTrue();
        }
        for (long i = 0; i < 100; i++) {
            assertThat(nextOtherThan(-1L, numbers)).isEqualTo(i);
            assertThat(nextOtherThan("0:hello", texts)).isEqualTo("0:m" + i);
        }
        assertThat(b.registry().get("parallax.net.bad.frames").counter().count()).isZero();
    }

    @Test
    void theBytesOfEveryFrameWrittenAreCountedPerChannel() throws InterruptedException {
        Port a = port(0);
        Port b = port(1);
        Transport<String> aText = a.port().channel("text", TextCodec.INSTANCE);
        Transport<Long> aNumbers = a.port().channel("numbers", LONGS);
        Transport<String> bText = b.port().channel("text", TextCodec.INSTANCE);
        Transport<Long> bNumbers = b.port().channel("numbers", LONGS);
        BlockingQueue<String> texts = new LinkedBlockingQueue<>();
        BlockingQueue<Long> numbers = new LinkedBlockingQueue<>();
        java.util.concurrent.atomic.AtomicInteger numbersReceived = new java.util.concurrent.atomic.AtomicInteger();
        aText.start((from, m) -> { });
        aNumbers.start((from, m) -> { });
        bText.start((from, m) -> texts.add(m));
        bNumbers.start((from, m) -> {
            numbersReceived.incrementAndGet();
            numbers.add(m);
        });
        sendUntil(() -> aText.send(1, "up"), () -> !texts.isEmpty());
        sendUntil(() -> aNumbers.send(1, -1L), () -> !numbers.isEmpty());

        for (long i = 0; i < 100; i++) {
            assertThat(aNumbers.send(1, i)).isTrue();
        }
        long last = -1;
        while (last != 99) {
            Long m = numbers.poll(20, TimeUnit.SECONDS);
            assertThat(m).as("100 numbers within 20 s").isNotNull();
            last = m;
        }
        // Every frame written arrived before the last one (one connection, in order); messages
        // dropped before the connection was up were never written and are not counted. A frame of
        // the numbers channel is length:4 version:1 type:1 channel:1, then a long.
        assertThat(sent(a, "numbers")).isEqualTo(numbersReceived.get() * (4 + 1 + 1 + 1 + 8));
        assertThat(sent(a, "text")).isPositive();
        assertThat(sent(b, "numbers")).isZero();
    }

    private static double sent(Port p, String channel) {
        return p.registry().get("parallax.net.bytes.sent").tag("channel", channel).counter().count();
    }

    @Test
    void aChannelThePeerDoesNotRunIsDroppedAndCountedAndTheOthersGoOn() throws InterruptedException {
        Port a = port(0);
        Port b = port(1);
        Transport<String> aText = a.port().channel("text", TextCodec.INSTANCE);
        Transport<Long> aOnly = a.port().channel("only-at-a", LONGS);
        Transport<String> bText = b.port().channel("text", TextCodec.INSTANCE);
        BlockingQueue<String> texts = new LinkedBlockingQueue<>();
        aText.start((from, m) -> { });
        aOnly.start((from, m) -> { });
        bText.start((from, m) -> texts.add(m));

        sendUntil(() -> aText.send(1, "up"), () -> !texts.isEmpty());
        double before = b.registry().get("parallax.net.channel.unknown").counter().count();
        assertThat(aOnly.send(1, 5L)).isTrue();
        Await.until(Duration.ofSeconds(20),
                () -> b.registry().get("parallax.net.channel.unknown").counter().count() >= before + 1,
                () -> "the frame for the unknown channel to be counted");
        texts.clear();
        assertThat(aText.send(1, "after")).isTrue();
        assertThat(nextOtherThan("up", texts)).as("the connection still carries the other channel").isEqualTo("after");
        assertThat(b.registry().get("parallax.net.channel.unknown").counter().count()).isEqualTo(before + 1);
        assertThat(b.registry().get("parallax.net.bad.frames").counter().count()).isZero();
    }

    @Test
    void everyFrameStampsTheSenderWhateverItsChannel() throws InterruptedException {
        Port a = port(0);
        Port b = port(1);
        Transport<String> aText = a.port().channel("text", TextCodec.INSTANCE);
        Transport<Long> aNumbers = a.port().channel("numbers", LONGS);
        Transport<String> bText = b.port().channel("text", TextCodec.INSTANCE);
        Transport<Long> bNumbers = b.port().channel("numbers", LONGS);
        java.util.concurrent.atomic.AtomicLong reads = new java.util.concurrent.atomic.AtomicLong();
        PeerLiveness liveness = new PeerLiveness(2, reads::incrementAndGet); // one tick per reading
        BlockingQueue<Long> numbers = new LinkedBlockingQueue<>();
        aText.start((from, m) -> { });
        aNumbers.start((from, m) -> { });
        bText.start((from, m) -> { }, liveness); // the stamps belong to the text channel's protocol
        bNumbers.start((from, m) -> numbers.add(m));
        sendUntil(() -> aNumbers.send(1, 1L), () -> !numbers.isEmpty());
        long stamped = liveness.lastHeard(0);
        numbers.clear();
        aNumbers.send(1, 2L);
        assertThat(nextOtherThan(1L, numbers)).isEqualTo(2L);
        assertThat(liveness.lastHeard(0)).as("a frame on the numbers channel stamped the text channel's liveness")
                .isGreaterThan(stamped);
    }

    @Test
    void channelNamesAreCheckedAndChannelsCannotBeOpenedOnceThePortRuns() {
        Port a = port(0);
        Transport<String> t = a.port().channel("text", TextCodec.INSTANCE);
        assertThatThrownBy(() -> a.port().channel("text", TextCodec.INSTANCE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("already open");
        assertThatThrownBy(() -> a.port().channel("Bad Name", LONGS)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[a-z0-9.-]");
        t.start((from, m) -> { });
        assertThatThrownBy(() -> a.port().channel("late", LONGS)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("after the replica port started");
        assertThatThrownBy(() -> t.start((from, m) -> { })).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void messagesToSelfAreHandedToTheChannelDirectly() {
        Port a = port(0);
        Transport<Long> numbers = a.port().channel("numbers", LONGS);
        List<Long> got = new ArrayList<>();
        numbers.start((from, m) -> got.add(from * 1000 + m));
        assertThat(numbers.send(0, 3L)).isTrue();
        assertThat(got).containsExactly(3L);
        numbers.close();
        assertThat(numbers.send(0, 4L)).as("a closed channel refuses").isFalse();
    }

    @Test
    void theByteBufferWireRoundTripsWhatTheNettyWireCarries() {
        ByteBufferWire.Encoded e = ByteBufferWire.encode(LONGS, 99L);
        assertThat(e.type()).isEqualTo(7);
        assertThat(ByteBufferWire.decode(LONGS, e.type(), e.body())).isEqualTo(99L);
        assertThatThrownBy(() -> ByteBufferWire.decode(LONGS, 7, java.nio.ByteBuffer.allocate(3)))
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("truncated");
    }
}
