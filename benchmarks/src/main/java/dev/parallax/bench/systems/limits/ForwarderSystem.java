package dev.parallax.bench.systems.limits;

import dev.parallax.examples.process.ServerProcesses;

import dev.parallax.bench.systems.BenchSystem;
import dev.parallax.bench.systems.ServerJvm;
import dev.parallax.examples.process.ServerProcesses;
import dev.parallax.core.net.LocalPorts;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code forwarder}: the bare forwarder, a {@link ForwarderLeader} JVM relaying every client read
 * burst as one message to two {@link ForwarderFollower} JVMs and answering its commands (8-byte
 * replies) when the first follower acknowledges it. No log, no state machine, no ordering protocol:
 * the least network work any leader-based replication does with three servers.
 *
 * <p>Not thread-safe (one owner thread, as {@link BenchSystem} says); its invokers are.
 */
public final class ForwarderSystem extends FramedSystem {
    /** Leader event loops (each with its own follower connections): one per core. */
    static final int LEADER_THREADS = 2;
    /** Follower event loops: one is plenty for acknowledging. */
    static final int FOLLOWER_THREADS = 1;
    private static final int FOLLOWERS = 2;

    @Override
    public String name() {
        return "forwarder";
    }

    @Override
    public Map<String, String> settings() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("servers", "1 leader + " + FOLLOWERS + " followers; one batch per client read burst, answered on the first ack");
        s.put("leader.io.threads", LEADER_THREADS + " (each with its own follower connections)");
        s.put("follower.io.threads", Integer.toString(FOLLOWER_THREADS));
        s.put("client.io.threads", Integer.toString(FramedConnections.CLIENT_THREADS));
        s.put("reply", "8 bytes");
        s.put("transport", "Netty NIO, TCP_NODELAY, pooled buffers, commands relayed as slices, one flush per loop turn");
        s.put("jvm", String.join(" ", ServerJvm.options()));
        return s;
    }

    @Override
    int launch(ServerProcesses servers, Duration timeout) throws Exception {
        List<String> leaderArgs = new ArrayList<>();
        int leaderPort = LocalPorts.next();
        leaderArgs.add(Integer.toString(leaderPort));
        leaderArgs.add(Integer.toString(LEADER_THREADS));
        for (int f = 1; f <= FOLLOWERS; f++) {
            int port = LocalPorts.next();
            leaderArgs.add(Integer.toString(port));
            servers.launch("follower-" + f, ForwarderFollower.class, List.of(Integer.toString(port),
                    Integer.toString(FOLLOWER_THREADS)));
        }
        for (int f = 1; f <= FOLLOWERS; f++) {
            servers.awaitReady("follower-" + f, timeout);
        }
        servers.launch("leader", ForwarderLeader.class, leaderArgs);
        servers.awaitReady("leader", timeout);
        return leaderPort;
    }
}
