package dev.parallax.bench.systems.ratis;

import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;

import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The benchmark's Raft group: its id and one loopback port per peer; peer {@code i} is named
 * {@code s<i>} and listens on {@code 127.0.0.1:ports[i]}. Immutable and thread-safe.
 *
 * @param groupId the Raft group id (fresh per run, so storage directories never clash)
 * @param ports   each peer's gRPC port, in peer order
 */
public record RatisPeers(UUID groupId, List<Integer> ports) {

    /** @throws IllegalArgumentException if there are no ports */
    public RatisPeers {
        ports = List.copyOf(ports);
        if (ports.isEmpty()) {
            throw new IllegalArgumentException("a group needs at least one peer");
        }
    }

    /**
     * Parses a group id and a port list in the form {@link #portList()} prints ({@code p0,p1,p2}).
     *
     * @throws IllegalArgumentException if the group id is not a UUID or a port not a number
     */
    public static RatisPeers parse(String groupId, String portList) {
        return new RatisPeers(UUID.fromString(groupId),
                Arrays.stream(portList.split(",")).map(String::trim).map(Integer::valueOf).toList());
    }

    /** The ports as {@code p0,p1,p2}, for a server's command line. */
    public String portList() {
        return ports.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** The id of peer {@code index}. */
    public RaftPeerId peerId(int index) {
        return RaftPeerId.valueOf("s" + index);
    }

    /** The Ratis group of every peer. */
    public RaftGroup group() {
        List<RaftPeer> peers = IntStream.range(0, ports.size())
                .mapToObj(i -> RaftPeer.newBuilder().setId(peerId(i)).setAddress("127.0.0.1:" + ports.get(i)).build())
                .toList();
        return RaftGroup.valueOf(RaftGroupId.valueOf(groupId), peers);
    }
}
