package dev.parallax.examples.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parallax.core.net.LocalPorts;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedding example of docs/embedding.md runs as written: three in-process replicas from a cluster file. */
class EmbeddedCounterTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("three replicas from a cluster file and a client: ten increments give 10")
    void runsFromAClusterFile() throws Exception {
        Path file = dir.resolve("cluster.properties");
        Files.writeString(file, "members=" + LocalPorts.endpoints(3) + "\nclients=" + LocalPorts.endpoints(3) + "\n");
        assertThat(EmbeddedCounter.run(file, 10)).isEqualTo(10);
    }

    @Test
    @DisplayName("a typo in the cluster file is refused with the nearest key named")
    void typoNamesTheNearestKey() throws Exception {
        Path file = dir.resolve("cluster.properties");
        Files.writeString(file, "members=" + LocalPorts.endpoints(3) + "\npaxos.windw=20\n");
        assertThatThrownBy(() -> EmbeddedCounter.run(file, 1))
                .hasMessageContaining("unknown key 'paxos.windw' (did you mean paxos.window?)");
    }

    @Test
    @DisplayName("the counter's snapshot restores its value; a malformed command is refused")
    void counterSnapshotAndBadCommand() throws Exception {
        Counter c = new Counter();
        c.execute(Counter.add(41));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        c.snapshot(Channels.newChannel(out));
        Counter restored = new Counter();
        restored.restore(Channels.newChannel(new ByteArrayInputStream(out.toByteArray())));
        assertThat(restored.execute(Counter.add(1)).getLong(0)).isEqualTo(42);
        assertThatThrownBy(() -> restored.execute(ByteBuffer.allocate(3))).hasMessageContaining("8 bytes");
    }
}
