package dev.parallax.bench.systems.limits;

import dev.parallax.bench.systems.framed.FramedClient;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The load JVM's {@link FramedClient}s of one system, on a shared pair of client event loops (as
 * Parallax's clients get). Owned by one thread; {@link #close} closes every client and the loops.
 */
final class FramedConnections implements AutoCloseable {
    /** Client event loops, as many as ParallaxSystem gives its clients. */
    static final int CLIENT_THREADS = 2;

    private final NioEventLoopGroup group = new NioEventLoopGroup(CLIENT_THREADS,
            new DefaultThreadFactory("bench-framed-client", true));
    private final List<FramedClient> clients = new ArrayList<>();

    /**
     * Opens one more connection to {@code 127.0.0.1:port}; blocks until connected.
     *
     * @throws IOException if the connection fails
     */
    FramedClient open(int port) throws IOException {
        FramedClient c = FramedClient.connect(group, "127.0.0.1", port);
        clients.add(c);
        return c;
    }

    @Override
    public void close() {
        clients.forEach(FramedClient::close);
        clients.clear();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
