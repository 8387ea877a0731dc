package dev.parallax.bench.systems.ratis;

import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RatisPeersTest {

    @Test
    void theCommandLineFormRoundTripsAndNamesEveryPeerOnLoopback() {
        RatisPeers peers = new RatisPeers(UUID.randomUUID(), List.of(7001, 7002, 7003));
        RatisPeers parsed = RatisPeers.parse(peers.groupId().toString(), peers.portList());
        assertThat(parsed).isEqualTo(peers);
        RaftGroup group = parsed.group();
        assertThat(group.getGroupId().getUuid()).isEqualTo(peers.groupId());
        assertThat(group.getPeers()).extracting(RaftPeer::getAddress)
                .containsExactlyInAnyOrder("127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003");
        assertThat(group.getPeer(peers.peerId(1)).getAddress()).isEqualTo("127.0.0.1:7002");
    }

    @Test
    void malformedGroupsAreRejected() {
        assertThatThrownBy(() -> new RatisPeers(UUID.randomUUID(), List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RatisPeers.parse("not-a-uuid", "1,2,3")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RatisPeers.parse(UUID.randomUUID().toString(), "1,x"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
