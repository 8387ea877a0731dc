package dev.parallax.examples.kv;

import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.wire.ConnectionLimit;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;

/**
 * A connection's decoder and handler on an embedded channel: the test drives reads and runs the
 * event loop's tasks itself, so every step is deterministic.
 */
final class HandlerFixture implements AutoCloseable {
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final RespMetrics metrics;
    final EmbeddedChannel channel;
    /** Outbound messages read so far, one per write. */
    int writes;

    HandlerFixture(CommandInvoker invoker, int maxPending) {
        RespCommands commands = new RespCommands();
        metrics = new RespMetrics(registry, commands.names(),
                new ConnectionLimit("test", RespServerConfig.MAX_CONNECTIONS_KEY, 1, new byte[0]));
        channel = new EmbeddedChannel(new RespRequestDecoder(new RespLimits(1000, 1000, 1000)),
                new RespConnectionHandler(invoker, commands, metrics, maxPending, 7));
    }

    /** Delivers {@code input} as one read. */
    void send(String input) {
        channel.writeInbound(Unpooled.copiedBuffer(input, StandardCharsets.ISO_8859_1));
    }

    /** Runs the event loop tasks, then returns everything written since the last call. */
    String output() {
        channel.runPendingTasks();
        StringBuilder out = new StringBuilder();
        ByteBuf buf;
        while ((buf = channel.readOutbound()) != null) {
            writes++;
            out.append(buf.toString(StandardCharsets.ISO_8859_1));
            buf.release();
        }
        return out.toString();
    }

    double count(String meter, String... tags) {
        return registry.get(meter).tags(tags).counter().count();
    }

    @Override
    public void close() {
        channel.finishAndReleaseAll();
    }
}
