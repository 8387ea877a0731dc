package dev.parallax.core.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parallax.core.config.ClusterMembers;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LocalPortsTest {
    @Test
    void neverHandsOutTheSamePortTwice() {
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            assertThat(seen.add(LocalPorts.next())).as("port handed out twice").isTrue();
        }
    }

    @Test
    void portsComeFromBelowTheEphemeralRangeAndAreBindable() throws Exception {
        for (int i = 0; i < 20; i++) {
            int port = LocalPorts.next();
            assertThat(port).isBetween(LocalPorts.LOWEST, LocalPorts.highest());
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            }
        }
    }

    @Test
    void aReturnedPortIsReservedMachineWideUntilTheJvmExits() throws Exception {
        int port = LocalPorts.next();
        java.nio.file.Path file = java.nio.file.Path.of(System.getProperty("java.io.tmpdir"), "parallax-local-ports.lock");
        try (java.nio.channels.FileChannel other = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.WRITE)) {
            // this JVM holds the port's byte: another holder (here another channel, in another JVM
            // a failed tryLock) cannot take it
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> other.tryLock(port, 1, false))
                    .isInstanceOf(java.nio.channels.OverlappingFileLockException.class);
        }
    }

    @Test
    void endpointsParseAsDistinctMembers() {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(5));
        assertThat(members.size()).isEqualTo(5);
    }
}
