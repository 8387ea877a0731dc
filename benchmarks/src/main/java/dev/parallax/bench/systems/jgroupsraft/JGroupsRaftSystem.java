package dev.parallax.bench.systems.jgroupsraft;

import dev.parallax.examples.process.ServerProcesses;

import dev.parallax.bench.systems.BenchSystem;
import dev.parallax.bench.systems.ServerJvm;
import dev.parallax.examples.process.ServerProcesses;
import dev.parallax.bench.systems.framed.FramedClient;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.net.LocalPorts;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * jgroups-raft as a peer: three members, each its own JVM ({@link JGroupsRaftPeerMain}) with a
 * counter state machine and a framed front end. The load connects every connection to the
 * leader's front end (the leader the members announced when ready), so commands take no
 * {@code REDIRECT} hop.
 *
 * <p>The stack is jgroups-raft's benchmark stack on TCP (see {@code raft-tcp.xml}); the log is
 * jgroups-raft's default and recommended {@code FileBasedLog}. Two variants:
 * {@code jgroups-raft} (RAFT's default {@code log_use_fsync=false}: appends are written, not
 * fsynced) and {@code jgroups-raft-fsync} ({@code log_use_fsync=true}).
 *
 * <p>Lifecycle and threading as {@link BenchSystem}: one owner thread.
 */
public final class JGroupsRaftSystem implements BenchSystem {
    private static final int MEMBERS = 3;
    private static final Pattern READY = Pattern.compile("raft_id=(\\S+) leader=(\\S+)");

    private final boolean fsync;
    private final List<RaftFramedInvoker> clients = new ArrayList<>();
    private final List<Integer> frontEndPorts = new ArrayList<>();
    private ServerProcesses servers;
    private NioEventLoopGroup group;
    private String leader;

    /** @param fsync whether RAFT fsyncs its log on every append ({@code jgroups-raft-fsync}) or not ({@code jgroups-raft}) */
    public JGroupsRaftSystem(boolean fsync) {
        this.fsync = fsync;
    }

    @Override
    public String name() {
        return fsync ? "jgroups-raft-fsync" : "jgroups-raft";
    }

    @Override
    public Map<String, String> settings() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("version", "jgroups-raft " + artifactVersion("jgroups-raft") + ", JGroups " + org.jgroups.Version.printVersion());
        s.put("members", MEMBERS + " JVMs, raft ids " + raftIds());
        s.put("stack", "jgroups-raft raft-benchmark.xml protocols over TCP + TCPPING on 127.0.0.1 "
                + "(no IP multicast on loopback); GMS join_timeout=2000, UFC/MFC max_credits=2M, FRAG4 60K, "
                + "TCP bundler.max_size=64K");
        s.put("RAFT.log_class", "org.jgroups.protocols.raft.FileBasedLog (default)");
        s.put("RAFT.log_use_fsync", Boolean.toString(fsync) + (fsync ? "" : " (default)"));
        s.put("RAFT.max_log_size", "1000000 (default; snapshot of the counter when exceeded)");
        s.put("ELECTION", "defaults");
        s.put("state machine", "counter; apply returns the new value, 8 bytes");
        s.put("front end", "FramedServer, " + JGroupsRaftPeerMain.FRONT_END_THREADS
                + " event loop, RaftHandle.setAsync per command, replies in order");
        s.put("client placement", "every connection to the leader's front end"
                + (leader == null ? "" : " (leader " + leader + ")"));
        s.put("jvm", String.join(" ", jvmOptions()));
        return s;
    }

    @Override
    public void start(Path workDir, Duration timeout) throws Exception {
        List<String> tcpPorts = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            tcpPorts.add(Integer.toString(LocalPorts.next()));
            frontEndPorts.add(LocalPorts.next());
        }
        servers = new ServerProcesses(workDir, jvmOptions());
        for (int i = 0; i < MEMBERS; i++) {
            Path logDir = Files.createDirectories(workDir.resolve("raft-" + i));
            servers.launch(serverName(i), JGroupsRaftPeerMain.class, List.of(Integer.toString(i),
                    String.join(",", tcpPorts), Integer.toString(frontEndPorts.get(i)),
                    logDir.toAbsolutePath().toString(), Boolean.toString(fsync)));
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Integer> votes = new HashMap<>();
        for (int i = 0; i < MEMBERS; i++) {
            String line = servers.awaitReady(serverName(i), Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            Matcher m = READY.matcher(line);
            if (!m.find()) {
                throw new IOException(serverName(i) + " announced no leader: " + line);
            }
            votes.merge(m.group(2), 1, Integer::sum);
        }
        leader = votes.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
        if (!raftIds().contains(leader)) {
            throw new IOException("members announced an unknown leader " + leader + ": " + votes);
        }
        group = new NioEventLoopGroup(2, new DefaultThreadFactory("bench-client", true));
    }

    @Override
    public Map<String, Long> serverPids() {
        return servers.pids();
    }

    @Override
    public CommandInvoker connect(int maxOutstanding) throws IOException {
        int port = frontEndPorts.get(raftIds().indexOf(leader));
        RaftFramedInvoker c = new RaftFramedInvoker(FramedClient.connect(group, "127.0.0.1", port));
        clients.add(c);
        return c;
    }

    @Override
    public void close() {
        clients.forEach(RaftFramedInvoker::close);
        clients.clear();
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
        if (servers != null) {
            servers.close();
        }
    }

    /** The leader's raft id the members announced, or {@code null} before {@link #start}. */
    public String leader() {
        return leader;
    }

    private static List<String> raftIds() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            ids.add(JGroupsRaftPeerMain.raftId(i));
        }
        return ids;
    }

    private static List<String> jvmOptions() {
        List<String> jvm = new ArrayList<>(ServerJvm.options());
        // JGroups' documented advice for IPv4 addresses such as 127.0.0.1.
        jvm.add("-Djava.net.preferIPv4Stack=true");
        return jvm;
    }

    private static String serverName(int i) {
        return "server-" + i;
    }

    private static String artifactVersion(String artifact) {
        String resource = "/META-INF/maven/org.jgroups/" + artifact + "/pom.properties";
        try (InputStream in = JGroupsRaftSystem.class.getResourceAsStream(resource)) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
