package dev.parallax.bench.systems.zookeeper;

import dev.parallax.core.net.LocalPorts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The layout of a local ZooKeeper ensemble (ports of every server) and the {@code zoo.cfg} each
 * server runs with. Immutable; {@link #writeServerFiles} only writes files.
 *
 * <p>The settings follow the ZooKeeper Administrator's Guide: the sample {@code zoo.cfg} timing
 * ({@code tickTime=2000}, {@code initLimit=10}, {@code syncLimit=5}), the transaction log in its own
 * {@code dataLogDir} ("having a dedicated log device has a large impact on throughput"),
 * {@code forceSync} as chosen (default {@code yes}), the default {@code snapCount} of 100000, the
 * admin server off, and {@code globalOutstandingLimit} raised far above the pipelined load so the
 * request throttler never holds a benchmark's requests back.
 */
public final class ZooKeeperEnsemble {
    /** Outstanding requests a server may queue before throttling clients; default 1000. */
    static final int GLOBAL_OUTSTANDING_LIMIT = 100_000;

    private final List<Ports> servers;
    private final boolean forceSync;

    /** Client, quorum (follower-to-leader) and leader-election ports of one server. */
    record Ports(int client, int quorum, int election) {
    }

    private ZooKeeperEnsemble(List<Ports> servers, boolean forceSync) {
        this.servers = List.copyOf(servers);
        this.forceSync = forceSync;
    }

    /**
     * An ensemble of {@code size} servers on fresh loopback ports. Blocks only to probe ports.
     *
     * @param forceSync whether each server fsyncs its transaction log before acknowledging
     */
    public static ZooKeeperEnsemble onFreePorts(int size, boolean forceSync) {
        List<Ports> ports = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            ports.add(new Ports(LocalPorts.next(), LocalPorts.next(), LocalPorts.next()));
        }
        return new ZooKeeperEnsemble(ports, forceSync);
    }

    /** Number of servers. */
    public int size() {
        return servers.size();
    }

    /** Client port of server {@code index} (0-based) on 127.0.0.1. */
    public int clientPort(int index) {
        return servers.get(index).client();
    }

    /** The settings written into every {@code zoo.cfg} except paths and ports, in file order. Pure. */
    public static Map<String, String> tuning(boolean forceSync) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("tickTime", "2000");
        s.put("initLimit", "10");
        s.put("syncLimit", "5");
        s.put("forceSync", forceSync ? "yes" : "no");
        s.put("snapCount", "100000");
        s.put("globalOutstandingLimit", Integer.toString(GLOBAL_OUTSTANDING_LIMIT));
        s.put("admin.enableServer", "false");
        s.put("4lw.commands.whitelist", "srvr");
        return s;
    }

    /**
     * Writes server {@code index}'s {@code data/myid}, creates its {@code datalog} directory and
     * writes its {@code zoo.cfg}, all under {@code serverDir}.
     *
     * @return the path of the {@code zoo.cfg}
     * @throws IOException if a file cannot be written
     */
    public Path writeServerFiles(Path serverDir, int index) throws IOException {
        Path data = Files.createDirectories(serverDir.resolve("data"));
        Path dataLog = Files.createDirectories(serverDir.resolve("datalog"));
        Files.writeString(data.resolve("myid"), Integer.toString(index + 1), StandardCharsets.US_ASCII);
        StringBuilder cfg = new StringBuilder();
        tuning(forceSync).forEach((k, v) -> cfg.append(k).append('=').append(v).append('\n'));
        cfg.append("dataDir=").append(data.toAbsolutePath()).append('\n');
        cfg.append("dataLogDir=").append(dataLog.toAbsolutePath()).append('\n');
        cfg.append("clientPortAddress=127.0.0.1\n");
        cfg.append("clientPort=").append(clientPort(index)).append('\n');
        for (int i = 0; i < servers.size(); i++) {
            Ports p = servers.get(i);
            cfg.append("server.").append(i + 1).append("=127.0.0.1:").append(p.quorum()).append(':')
                    .append(p.election()).append('\n');
        }
        Path file = serverDir.resolve("zoo.cfg");
        Files.writeString(file, cfg, StandardCharsets.US_ASCII);
        return file;
    }
}
