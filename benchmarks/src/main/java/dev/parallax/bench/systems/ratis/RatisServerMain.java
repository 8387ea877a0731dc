package dev.parallax.bench.systems.ratis;

import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;

import java.io.File;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * One Ratis server of the benchmark group, run as its own JVM by {@link RatisSystem}:
 * {@code RatisServerMain <index> <groupId> <p0,p1,p2> <storageDir> <fsync|nosync>}. Formats a fresh
 * log under {@code storageDir}, serves the {@link CounterStateMachine}, prints {@code READY ...}
 * once the server has started (the leader election may still be running) and runs until the JVM is
 * terminated, closing the server from a shutdown hook.
 */
public final class RatisServerMain {
    private RatisServerMain() {
    }

    /**
     * Starts the server and blocks until the JVM shuts down.
     *
     * @throws IllegalArgumentException if the arguments are malformed
     * @throws java.io.IOException      if the server cannot start (port taken, storage unusable)
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 5 || !List.of("fsync", "nosync").contains(args[4])) {
            throw new IllegalArgumentException(
                    "usage: RatisServerMain <index> <groupId> <p0,p1,p2> <storageDir> <fsync|nosync>");
        }
        int index = Integer.parseInt(args[0]);
        RatisPeers peers = RatisPeers.parse(args[1], args[2]);
        RatisSettings settings = new RatisSettings(args[4].equals("fsync"));
        RaftServer server = RaftServer.newBuilder()
                .setServerId(peers.peerId(index))
                .setGroup(peers.group())
                .setStateMachine(new CounterStateMachine())
                .setProperties(settings.serverProperties(new File(args[3]), peers.ports().get(index)))
                .setOption(RaftStorage.StartupOption.FORMAT)
                .build();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (Exception e) {
                System.err.println("closing the Ratis server failed: " + e);
            } finally {
                stopped.countDown();
            }
        }, "ratis-server-shutdown"));
        server.start();
        System.out.println("READY ratis " + peers.peerId(index) + " 127.0.0.1:" + peers.ports().get(index)
                + " group " + peers.groupId() + (settings.fsync() ? " fsync" : " nosync"));
        System.out.flush();
        stopped.await();
    }
}
