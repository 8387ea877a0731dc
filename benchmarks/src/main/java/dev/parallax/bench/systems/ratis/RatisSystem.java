package dev.parallax.bench.systems.ratis;

import dev.parallax.examples.process.ServerProcesses;

import dev.parallax.bench.systems.BenchSystem;
import dev.parallax.bench.systems.ServerJvm;
import dev.parallax.examples.process.ServerProcesses;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.net.LocalPorts;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeerId;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;

/**
 * Apache Ratis: a three-peer Raft group of {@link RatisServerMain} JVMs on 127.0.0.1 serving a
 * {@link CounterStateMachine} over gRPC, driven through one {@link RaftClient} per connection
 * ({@link RatisInvoker}). {@code ratis} keeps Ratis's default durable log (fsync per flush batch);
 * {@code ratis-nosync} acknowledges appends before the fsync completes (unsafe flush). See
 * {@link RatisSettings} for every setting.
 *
 * <p>Not thread-safe (one owner thread, as {@link BenchSystem} requires); the invokers are.
 */
public final class RatisSystem implements BenchSystem {
    private static final int PEERS = 3;

    private final RatisSettings settings;
    private final List<String> jvmOptions;
    private final List<RatisInvoker> invokers = new ArrayList<>();
    private ServerProcesses servers;
    private RatisPeers peers;
    private RaftPeerId leader;

    /**
     * With the comparison's server JVM options ({@link ServerJvm#options()}).
     *
     * @param fsync {@code true} for {@code ratis} (appends wait for fsync), {@code false} for {@code ratis-nosync}
     */
    public RatisSystem(boolean fsync) {
        this(fsync, ServerJvm.options());
    }

    /**
     * @param fsync      as in {@link #RatisSystem(boolean)}
     * @param jvmOptions heap and GC options of every server JVM (a smoke test passes small ones)
     */
    public RatisSystem(boolean fsync, List<String> jvmOptions) {
        this.settings = new RatisSettings(fsync);
        List<String> jvm = new ArrayList<>(jvmOptions);
        jvm.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        this.jvmOptions = List.copyOf(jvm);
    }

    @Override
    public String name() {
        return settings.fsync() ? "ratis" : "ratis-nosync";
    }

    @Override
    public Map<String, String> settings() {
        Map<String, String> s = new LinkedHashMap<>(settings.describe());
        s.put("jvm", String.join(" ", jvmOptions));
        return s;
    }

    /**
     * Launches the three servers, waits for each one's {@code READY} line, then for a leader: a
     * probe client's first write (retried by Ratis until a leader accepts it) must commit.
     *
     * @throws IOException if a server exits, or no server is ready or no write commits within {@code timeout}
     */
    @Override
    public void start(Path workDir, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        peers = new RatisPeers(UUID.randomUUID(), IntStream.range(0, PEERS).mapToObj(i -> LocalPorts.next()).toList());
        servers = new ServerProcesses(workDir, jvmOptions);
        for (int i = 0; i < PEERS; i++) {
            servers.launch(serverName(i), RatisServerMain.class, List.of(String.valueOf(i), peers.groupId().toString(),
                    peers.portList(), workDir.resolve("ratis-" + i).toString(), settings.fsync() ? "fsync" : "nosync"));
        }
        for (int i = 0; i < PEERS; i++) {
            servers.awaitReady(serverName(i), remaining(deadline));
        }
        leader = awaitLeader(remaining(deadline));
    }

    @Override
    public Map<String, Long> serverPids() {
        return servers.pids();
    }

    /**
     * Opens a {@link RatisInvoker} over a new {@link RaftClient} that starts at the elected leader.
     *
     * @throws IllegalStateException if {@link #start} has not succeeded
     */
    @Override
    public CommandInvoker connect(int maxOutstanding) {
        if (leader == null) {
            throw new IllegalStateException("start() first");
        }
        RatisInvoker invoker = new RatisInvoker(newClient(Math.max(1, maxOutstanding), leader), Math.max(1, maxOutstanding));
        invokers.add(invoker);
        return invoker;
    }

    @Override
    public void close() {
        invokers.forEach(RatisInvoker::close);
        invokers.clear();
        if (servers != null) {
            servers.close();
        }
    }

    private RaftPeerId awaitLeader(Duration timeout) throws IOException, InterruptedException {
        try (RaftClient probe = newClient(1, null)) {
            RaftClientReply reply = probe.async().send(Message.EMPTY).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            if (!reply.isSuccess()) {
                throw new IOException("the Ratis group rejected the probe write: " + reply, reply.getException());
            }
            return reply.getServerId();
        } catch (TimeoutException e) {
            throw new IOException("no Ratis leader committed a write within " + timeout + "; see " + servers.log(serverName(0)), e);
        } catch (ExecutionException e) {
            throw new IOException("the probe write to the Ratis group failed", e.getCause());
        }
    }

    private RaftClient newClient(int maxOutstanding, RaftPeerId leaderId) {
        return RaftClient.newBuilder()
                .setRaftGroup(peers.group())
                .setLeaderId(leaderId)
                .setProperties(RatisSettings.clientProperties(maxOutstanding))
                .setRetryPolicy(RatisSettings.clientRetryPolicy())
                .build();
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    private static String serverName(int i) {
        return "server-" + i;
    }
}
