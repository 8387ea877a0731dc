package dev.parallax.core.net;

import dev.parallax.core.testkit.TextCodec;

import dev.parallax.core.wire.LogRateLimiter;
import dev.parallax.core.wire.Frames;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.Member;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.log.CapturedStderr;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.StageThreads;
import dev.parallax.core.stage.ThreadPlacement;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A flood of bad frames: 10,000 connections each opening with a frame that is
 * not a hello. Every one is counted in {@code parallax.net.bad.frames}, exactly, while the replica
 * port logs at most {@link LogRateLimiter#DEFAULT_LINES} warnings, plus one summary, per interval.
 */
class BadFrameFloodTest {
    private static final int FRAMES = 10_000;
    private static final int SENDERS = 4;

    @Test
    void tenThousandBadFramesAreAllCountedButFewAreLogged() throws Exception {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(2));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        byte[] bad = badFrame();
        String text;
        long elapsed;
        try (StageThreads threads = StageThreads.builder(ThreadPlacement.STAGED).meterRegistry(registry).build();
             ReplicaPort port = new ReplicaPort(ReplicaConfig.builder().id(0).members(members).build(), registry, threads,
                     SystemClock.INSTANCE)) {
            Transport<String> channel = port.channel("text", TextCodec.INSTANCE);
            channel.start((from, m) -> { });
            Member self = members.members().get(0);
            ExecutorService senders = Executors.newFixedThreadPool(SENDERS);
            try (CapturedStderr err = new CapturedStderr()) {
                long start = System.nanoTime();
                List<Future<?>> done = new ArrayList<>();
                for (int s = 0; s < SENDERS; s++) {
                    done.add(senders.submit(() -> {
                        for (int i = 0; i < FRAMES / SENDERS; i++) {
                            sendAndAwaitClose(self, bad);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get(5, TimeUnit.MINUTES);
                }
                elapsed = System.nanoTime() - start;
                text = err.text();
            } finally {
                senders.shutdownNow();
            }
            assertThat(registry.find("parallax.net.bad.frames").tag("kind", "replica").counter().count())
                    .as("every bad frame counted, once").isEqualTo(FRAMES);
        }
        long intervals = elapsed / LogRateLimiter.DEFAULT_INTERVAL.toNanos() + 1;
        long warnings = text.lines().filter(l -> l.contains("WARN " + ReplicaPort.class.getName())).count();
        assertThat(warnings).as("warnings logged in %d interval(s)", intervals)
                .isPositive().isLessThanOrEqualTo(intervals * (LogRateLimiter.DEFAULT_LINES + 1));
    }

    /** A frame on channel 3 as the first frame of a connection: the port wants a hello first. */
    private static byte[] badFrame() {
        ByteBuf b = Unpooled.buffer();
        Frames.writeHeader(b, 5, 1);
        b.writeByte(3);
        byte[] bytes = new byte[b.readableBytes()];
        b.readBytes(bytes);
        return bytes;
    }

    /** Connects, sends the frame and waits for the port to close the connection (it counted the frame by then). */
    private static void sendAndAwaitClose(Member to, byte[] frame) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(to.host(), to.port()), 10_000);
            s.setSoTimeout(30_000);
            s.getOutputStream().write(frame);
            InputStream in = s.getInputStream();
            try {
                while (in.read() != -1) {
                    // the port sends nothing on an inbound connection; wait for its close
                }
            } catch (SocketException reset) {
                // closed with a reset: closed all the same
            }
        }
    }
}
