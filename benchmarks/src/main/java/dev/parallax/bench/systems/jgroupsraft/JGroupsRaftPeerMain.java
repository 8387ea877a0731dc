package dev.parallax.bench.systems.jgroupsraft;

import dev.parallax.bench.systems.framed.FramedServer;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.raft.RaftHandle;

import java.io.InputStream;
import java.util.List;

/**
 * One jgroups-raft member JVM of the benchmark cluster: a JChannel on the {@code raft-tcp.xml}
 * stack with a {@link RaftHandle} over a {@link CounterStateMachine}, and a {@link FramedServer}
 * front end ({@link RaftFrontEnd}) for the load, since jgroups-raft has no remote client of its
 * own. Prints {@code READY raft_id=<id> leader=<id>} once the member knows a leader.
 *
 * <p>Usage: {@code JGroupsRaftPeerMain <index> <tcpPort,tcpPort,...> <framedPort> <logDir> <fsync>}; member
 * {@code i} has raft id {@link #raftId raftId(i)} and binds the {@code i}-th TCP port. Runs until killed.
 */
public final class JGroupsRaftPeerMain {
    static final String CLUSTER = "parallax-bench-raft";
    static final String STACK = "raft-tcp.xml";
    static final int FRONT_END_THREADS = 1;
    private static final int LEADER_PROBE_MS = 20;

    private JGroupsRaftPeerMain() {
    }

    /** The raft id of member {@code index}: {@code A}, {@code B}, {@code C}, ... */
    public static String raftId(int index) {
        return String.valueOf((char) ('A' + index));
    }

    /**
     * Starts the member and its front end, announces the leader, then blocks forever.
     *
     * @throws Exception if the channel or the front end cannot start
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: JGroupsRaftPeerMain <index> <tcpPort,...> <framedPort> <logDir> <fsync>");
            System.exit(2);
        }
        int index = Integer.parseInt(args[0]);
        List<String> ports = List.of(args[1].split(","));
        String id = raftId(index);
        StringBuilder members = new StringBuilder();
        StringBuilder hosts = new StringBuilder();
        for (int i = 0; i < ports.size(); i++) {
            members.append(i == 0 ? "" : ",").append(raftId(i));
            hosts.append(i == 0 ? "" : ",").append("127.0.0.1[").append(ports.get(i)).append(']');
        }
        // The stack file reads these as ${...} placeholders when the channel is created.
        System.setProperty("parallax.raft.bind_port", ports.get(index));
        System.setProperty("parallax.raft.initial_hosts", hosts.toString());
        System.setProperty("parallax.raft.members", members.toString());
        System.setProperty("parallax.raft.id", id);
        System.setProperty("parallax.raft.log_dir", args[3]);
        System.setProperty("parallax.raft.fsync", Boolean.toString(Boolean.parseBoolean(args[4])));
        JChannel channel;
        try (InputStream stack = JGroupsRaftPeerMain.class.getResourceAsStream(STACK)) {
            if (stack == null) {
                throw new IllegalStateException(STACK + " is not on the class path");
            }
            channel = new JChannel(stack).name(id);
        }
        RaftHandle raft = new RaftHandle(channel, new CounterStateMachine()).raftId(id);
        channel.connect(CLUSTER);
        FramedServer.start(Integer.parseInt(args[2]), FRONT_END_THREADS, () -> new RaftFrontEnd(raft));
        Address leader;
        // jgroups-raft notifies role changes of this member only, not who the leader is; the leader
        // appears once an election among a majority finished, so it is probed until then.
        while ((leader = raft.leader()) == null) {
            Thread.sleep(LEADER_PROBE_MS);
        }
        System.out.println("READY raft_id=" + id + " leader=" + leader);
        System.out.flush();
        Thread.currentThread().join();
    }
}
