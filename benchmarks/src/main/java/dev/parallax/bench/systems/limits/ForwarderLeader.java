package dev.parallax.bench.systems.limits;

import io.netty.channel.EventLoop;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.EventExecutor;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The bare forwarder's leader JVM: accepts {@link dev.parallax.bench.systems.framed.FramedClient}
 * connections and relays each client read burst as one batch to the followers, answering the
 * batch's commands with 8-byte replies on the first acknowledgement. Each event loop has its own
 * follower connections ({@link FollowerLinks}), so the loops share no state.
 * {@code ForwarderLeader <clientPort> <threads> <followerPort>...} (followers on 127.0.0.1) prints
 * {@code READY <clientPort>} once serving and runs until stopped.
 */
public final class ForwarderLeader {
    private ForwarderLeader() {
    }

    /**
     * Connects, then serves until the process is stopped.
     *
     * @throws IOException          if a follower cannot be reached
     * @throws InterruptedException if interrupted while starting or serving
     */
    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length < 3) {
            System.err.println("usage: ForwarderLeader <clientPort> <threads> <followerPort>...");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        List<InetSocketAddress> followers = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            followers.add(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[i])));
        }
        NioEventLoopGroup workers = LoopbackServer.loops("leader", Integer.parseInt(args[1]));
        Map<EventLoop, FollowerLinks> links = new IdentityHashMap<>();
        try {
            for (EventExecutor e : workers) {
                EventLoop loop = (EventLoop) e;
                links.put(loop, FollowerLinks.connect(loop, followers));
            }
        } catch (IOException e) {
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
        LoopbackServer server = LoopbackServer.bind("leader", port, workers,
                ch -> new CommandBatcher(links.get(ch.eventLoop())));
        System.out.println("READY " + port);
        server.awaitClose();
    }
}
