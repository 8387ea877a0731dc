package dev.parallax.bench.systems.zookeeper;

import dev.parallax.examples.process.ServerProcesses;

import dev.parallax.bench.systems.BenchSystem;
import dev.parallax.bench.systems.ServerJvm;
import dev.parallax.examples.process.ServerProcesses;
import dev.parallax.core.client.CommandInvoker;
import org.apache.zookeeper.Version;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Apache ZooKeeper as a peer: a 3-server ensemble, each server its own JVM
 * ({@link ZooKeeperPeerMain} around ZooKeeper's {@code QuorumPeerMain}), configured by
 * {@link ZooKeeperEnsemble}. Each connection is its own ZooKeeper session running the
 * {@link ZkWorkload} ({@link #workload}; default: asynchronous {@code setData} on its own znodes) through
 * {@link ZooKeeperInvoker}, the same workload Volery runs. Connection {@code k} talks to server
 * {@code k mod 3} only, so sessions spread evenly over the ensemble as in the ZooKeeper paper's
 * throughput runs; writes reaching a follower are forwarded to the leader by ZooKeeper itself.
 *
 * <p>Two variants: {@code zookeeper} ({@code forceSync=yes}, ZooKeeper's default: the transaction
 * log is fsynced before a proposal is acknowledged) and {@code zookeeper-nosync}
 * ({@code forceSync=no}); a workload with global commands adds its suffix ({@code zookeeper-g10}).
 *
 * <p>Lifecycle and threading as {@link BenchSystem}: one owner thread.
 */
public final class ZooKeeperSystem implements ZooKeeperApiSystem {
    private static final int SERVERS = 3;

    private final boolean forceSync;
    private final ZooKeeperSessions sessions = new ZooKeeperSessions();
    private final Map<String, String> modes = new LinkedHashMap<>();
    private ZooKeeperEnsemble ensemble;
    private ServerProcesses servers;

    /** @param forceSync whether servers fsync their transaction log ({@code zookeeper}) or not ({@code zookeeper-nosync}) */
    public ZooKeeperSystem(boolean forceSync) {
        this.forceSync = forceSync;
    }

    @Override
    public ZooKeeperSystem workload(ZkWorkload workload) {
        sessions.workload(workload);
        return this;
    }

    @Override
    public ZkWorkload workload() {
        return sessions.workload();
    }

    @Override
    public String name() {
        return (forceSync ? "zookeeper" : "zookeeper-nosync") + workload().nameSuffix();
    }

    @Override
    public Map<String, String> settings() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("version", Version.getFullVersion());
        s.put("servers", SERVERS + " JVMs, QuorumPeerMain, NIOServerCnxnFactory (default)");
        ZooKeeperEnsemble.tuning(forceSync).forEach((k, v) -> s.put("zoo.cfg " + k, v));
        s.put("zoo.cfg dataLogDir", "separate directory from dataDir (same device here)");
        s.put("client", "one session per connection, ZooKeeper's client, ClientCnxnSocketNIO (default), SASL off");
        s.put("workload", workload().describe());
        s.put("client placement", "connection k -> server k mod 3 (followers forward writes to the leader)");
        s.put("reply", "setData: Stat version, 4 bytes; create, delete: empty");
        s.put("jvm", String.join(" ", ServerJvm.options()));
        modes.forEach((k, v) -> s.put("mode " + k, v));
        return s;
    }

    @Override
    public void start(Path workDir, Duration timeout) throws Exception {
        ensemble = ZooKeeperEnsemble.onFreePorts(SERVERS, forceSync);
        List<String> jvm = new ArrayList<>(ServerJvm.options());
        jvm.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        servers = new ServerProcesses(workDir, jvm);
        for (int i = 0; i < SERVERS; i++) {
            Path cfg = ensemble.writeServerFiles(workDir.resolve("zk-" + i), i);
            servers.launch(serverName(i), ZooKeeperPeerMain.class,
                    List.of(cfg.toAbsolutePath().toString(), Integer.toString(ensemble.clientPort(i))));
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int i = 0; i < SERVERS; i++) {
            String ready = servers.awaitReady(serverName(i), Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            modes.put(serverName(i), ready.substring(ready.indexOf("mode=") + "mode=".length()).trim());
        }
        ZooKeeperInvoker.quietClientLogs();
    }

    @Override
    public Map<String, Long> serverPids() {
        return servers.pids();
    }

    @Override
    public CommandInvoker connect(int maxOutstanding) throws Exception {
        return sessions.open("127.0.0.1:" + ensemble.clientPort(sessions.opened() % SERVERS));
    }

    @Override
    public void close() {
        sessions.close();
        if (servers != null) {
            servers.close();
        }
    }

    private static String serverName(int i) {
        return "server-" + i;
    }
}
