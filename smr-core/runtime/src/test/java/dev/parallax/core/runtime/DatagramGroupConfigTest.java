package dev.parallax.core.runtime;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DatagramGroupConfigTest {

    @Test
    @DisplayName("the defaults are the mring.* defaults of docs/protocols/ring-paxos.md")
    void defaults() {
        DatagramGroupConfig c = DatagramGroupConfig.DEFAULTS;
        assertThat(c.group()).isEqualTo("239.255.80.1");
        assertThat(c.port()).isEqualTo(7400);
        assertThat(c.interfaceAddress()).isEqualTo("127.0.0.1");
        assertThat(c.ttl()).isEqualTo(1);
        assertThat(c.packetBytes()).isEqualTo(8192);
        assertThat(c.socketBufferBytes()).isEqualTo(4_194_304);
        assertThat(c.faults()).isSameAs(DatagramFaults.NONE);
        assertThat(c.groupAddress().isMulticastAddress()).isTrue();
        assertThat(c.interfaceInetAddress().isLoopbackAddress()).isTrue();
        assertThat(c.toBuilder().build()).isEqualTo(c);
        DatagramGroupConfig d = c.toBuilder().group("239.255.1.2").port(9000).packetBytes(512).socketBufferBytes(512).ttl(0)
                .faults(DatagramFaults.parse("drop=0.5")).build();
        assertThat(d).isEqualTo(new DatagramGroupConfig("239.255.1.2", 9000, "127.0.0.1", 512, 512, 0,
                new DatagramFaults(0.5, 0, 0, 0)));
    }

    @Test
    @DisplayName("out-of-range settings are refused, naming the mring key")
    void validation() {
        assertThatThrownBy(() -> DatagramGroupConfig.builder().group("10.0.0.1").build()).hasMessageContaining("mring.group");
        assertThatThrownBy(() -> DatagramGroupConfig.builder().group("example.org").build()).hasMessageContaining("mring.group");
        assertThatThrownBy(() -> DatagramGroupConfig.builder().group("239.255.1.256").build()).hasMessageContaining("mring.group");
        assertThatThrownBy(() -> DatagramGroupConfig.builder().interfaceAddress("10.0.0").build())
                .hasMessageContaining("mring.interface");
        assertThatThrownBy(() -> DatagramGroupConfig.builder().interfaceAddress("a name too long").build())
                .hasMessageContaining("mring.interface");
        assertThatThrownBy(() -> DatagramGroupConfig.builder().interfaceAddress("").build())
                .hasMessageContaining("mring.interface");
        assertThatThrownBy(() -> DatagramGroupConfig.builder().port(0).build()).hasMessageContaining("mring.port");
        assertThatThrownBy(() -> DatagramGroupConfig.builder().port(65_536).build()).hasMessageContaining("mring.port");
        assertThatThrownBy(() -> DatagramGroupConfig.builder().packetBytes(511).build()).hasMessageContaining("mring.packet.bytes");
        assertThatThrownBy(() -> DatagramGroupConfig.builder().packetBytes(65_508).build())
                .hasMessageContaining("mring.packet.bytes");
        assertThatThrownBy(() -> DatagramGroupConfig.builder().packetBytes(8192).socketBufferBytes(8191).build())
                .hasMessageContaining("mring.socket.buffer.bytes");
        assertThatThrownBy(() -> DatagramGroupConfig.builder().ttl(256).build()).hasMessageContaining("mring.ttl");
        assertThatThrownBy(() -> DatagramGroupConfig.builder().faults(null).build()).isInstanceOf(NullPointerException.class);
    }

    @Test
    @DisplayName("mring.interface may name the interface (eth0): one cluster file for hosts whose addresses differ")
    void interfaceByName() {
        DatagramGroupConfig byName = DatagramGroupConfig.builder().interfaceAddress("eth0").build();
        assertThat(byName.interfaceByName()).isTrue();
        assertThatThrownBy(byName::interfaceInetAddress).isInstanceOf(IllegalStateException.class).hasMessageContaining("eth0");
        assertThat(DatagramGroupConfig.builder().interfaceAddress("10.0.0.1").build().interfaceByName()).isFalse();
    }
}
