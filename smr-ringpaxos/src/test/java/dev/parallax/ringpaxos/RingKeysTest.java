package dev.parallax.ringpaxos;

import dev.parallax.core.config.ConfigKey;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.config.Settings;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RingKeysTest {

    private static final Path FILE = Path.of("cluster.properties");

    private static Settings file(Map<String, String> keys) {
        Properties p = new Properties();
        p.putAll(keys);
        return Settings.of(p, FILE);
    }

    @Test
    @DisplayName("a cluster file's ring.* / mring.* keys give the configuration the builder makes from the same values")
    void settingsReadIntoTheBuildersConfiguration() {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("ring.window", "16");
        keys.put("ring.batch.timeout.ms", "2");
        keys.put("ring.eager.below", "40");
        keys.put("ring.heartbeat.ms", "40");
        keys.put("ring.suspect.ms", "400");
        keys.put("ring.rejoin.backoff.ms", "0");
        keys.put("ring.lambda", "20000");
        keys.put("ring.delta.ms", "3");
        keys.put("mring.group", " 239.255.9.9 ");
        keys.put("mring.port", "7411");
        keys.put("mring.packet.bytes", "4096");
        keys.put("mring.learner.buffer.bytes", "33554432");
        keys.put("mring.test.faults", "drop=0.02,seed=7");
        RingConfig read = RingKeys.config(file(keys), 5, Ring.Kind.M_RING);
        RingConfig built = RingConfig.builder(5, Ring.Kind.M_RING).window(16).batchTimeout(Duration.ofMillis(2)).eagerBelow(40)
                .heartbeat(Duration.ofMillis(40)).suspect(Duration.ofMillis(400)).rejoinBackoff(Duration.ZERO).lambda(20_000)
                .skipInterval(Duration.ofMillis(3)).mringGroup("239.255.9.9").mringPort(7411).mringPacketBytes(4096)
                .mringLearnerBufferBytes(32L << 20).mringTestFaults("drop=0.02,seed=7").build();
        assertThat(read).hasToString(built.toString());
        assertThat(read.members()).isEqualTo(5);
        assertThat(read.kind()).isEqualTo(Ring.Kind.M_RING);
        assertThat(read.window()).isEqualTo(16);
        assertThat(read.eagerBelow()).as("capped at the window").isEqualTo(16);
        assertThat(read.batchTimeoutNanos()).isEqualTo(2_000_000L);
        assertThat(read.heartbeatNanos()).isEqualTo(40_000_000L);
        assertThat(read.rejoinBackoffNanos()).isZero();
        assertThat(read.lambda()).isEqualTo(20_000L);
        assertThat(read.skipIntervalNanos()).isEqualTo(3_000_000L);
        assertThat(read.mringGroup()).isEqualTo("239.255.9.9");
        assertThat(read.mringPort()).isEqualTo(7411);
        assertThat(read.mringLearnerBufferBytes()).isEqualTo(32L << 20);
        assertThat(read.mringTestFaults()).isEqualTo("drop=0.02,seed=7");
        assertThat(read.get(RingKeys.MRING_PACKET_BYTES)).isEqualTo(4096);
        // The keys not in the file keep their defaults.
        assertThat(read.batchBytes()).isEqualTo(RingKeys.BATCH_BYTES.defaultValue()).isEqualTo(8000);
        assertThat(read.stallNanos()).isEqualTo(RingKeys.STALL.defaultValue().toNanos()).isEqualTo(1_000_000_000L);
        assertThat(read.mringTtl()).isEqualTo(RingKeys.MRING_TTL.defaultValue()).isEqualTo(1);
        assertThat(read.mringInterface()).isEqualTo("127.0.0.1");
    }

    @Test
    @DisplayName("mring.auth: hmac by default (the datagram group is authenticated), none only when the file says so")
    void mringAuth() {
        assertThat(RingPaxos.datagramGroup(RingKeys.config(file(Map.of()), 3, Ring.Kind.M_RING)).authenticated()).isTrue();
        assertThat(RingPaxos.datagramGroup(RingKeys.config(file(Map.of("mring.auth", "hmac")), 3, Ring.Kind.M_RING))
                .authenticated()).isTrue();
        assertThat(RingPaxos.datagramGroup(RingKeys.config(file(Map.of("mring.auth", "none")), 3, Ring.Kind.M_RING))
                .authenticated()).isFalse();
        assertThatThrownBy(() -> RingKeys.config(file(Map.of("mring.auth", "off")), 3, Ring.Kind.M_RING))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("mring.auth");
    }

    @Test
    @DisplayName("with nothing set every RingConfig getter equals the builder's default, and every key answers its default")
    void everyGetterEqualsTheBuilderDefault() throws Exception {
        for (Ring.Kind kind : Ring.Kind.values()) {
            RingConfig read = RingKeys.config(Settings.of(Map.of()), 3, kind);
            RingConfig built = RingConfig.builder(3, kind).build();
            int getters = 0;
            for (Method m : RingConfig.class.getDeclaredMethods()) {
                if (Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()) && m.getParameterCount() == 0
                        && m.getReturnType() != void.class && !m.getName().equals("toBuilder")) {
                    assertThat(m.invoke(read)).as(m.getName()).isEqualTo(m.invoke(built));
                    getters++;
                }
            }
            assertThat(getters).as("the getters compared").isGreaterThanOrEqualTo(RingKeys.TABLE.keys().size());
            for (ConfigKey<?> key : RingKeys.TABLE.keys()) {
                assertThat((Object) read.get(key)).as(key.name()).isEqualTo(key.defaultValue());
            }
        }
    }

    @Test
    @DisplayName("the Ring Paxos table: every ring.* and mring.* key, each with a default and a documentation line")
    void theTable() {
        assertThat(RingKeys.TABLE.name()).isEqualTo("Ring Paxos");
        assertThat(RingKeys.TABLE.keys()).hasSize(39);
        for (ConfigKey<?> key : RingKeys.TABLE.keys()) {
            assertThat(key.name()).matches("m?ring\\.[a-z.]+");
            assertThat(key.defaultValue()).as(key.name()).isNotNull();
            assertThat(key.doc()).as(key.name()).isNotBlank();
            assertThat(key.name().endsWith(".ms")).as(key.name()).isEqualTo(key.type() == Duration.class);
        }
        assertThat(RingKeys.TABLE.knows("ring.windw")).isFalse();
    }

    @Test
    @DisplayName("a bad value is refused naming the file and the key, with the builder's message")
    void badValuesNameTheFileAndTheKey() {
        Map<String, String> bad = new LinkedHashMap<>();
        bad.put("ring.window=many", "ring.window is not a whole number: 'many'");
        bad.put("ring.window=0", "ring.window must be > 0, got 0");
        bad.put("ring.packet.bytes=100", "ring.packet.bytes must be >= 512, got 100");
        bad.put("ring.rejoin.lag=-1", "ring.rejoin.lag must be >= 0, got -1");
        bad.put("ring.heartbeat.ms=0", "ring.heartbeat.ms must be > 0, got 0 ms");
        bad.put("ring.heartbeat.ms=600", "ring.heartbeat.ms (600) must be below ring.suspect.ms (500)");
        bad.put("ring.max.backlog=4096", "ring.max.backlog (4096) must be below 4096");
        bad.put("ring.catchup.max.bytes=999999999", "ring.catchup.max.bytes (999999999) must be at most half of max.frame.bytes ("
                + ReplicaConfig.DEFAULT_MAX_FRAME + ")");
        bad.put("ring.lambda=-1", "ring.lambda must be 0 (off) .. 1000000000 instances per second, got -1");
        bad.put("ring.delta.ms=61000", "ring.delta.ms must be <= 60000 ms, got 61000 ms");
        bad.put("mring.port=70000", "mring.port must be 1..65535, got 70000");
        bad.put("mring.ttl=300", "mring.ttl must be 0..255, got 300");
        bad.put("mring.packet.bytes=70000", "mring.packet.bytes must be <= 65507 (one UDP datagram), got 70000");
        bad.put("mring.window.min=64", "mring.window.min (64) must be <= ring.window (32)");
        bad.put("mring.group= ", "mring.group must not be empty");
        bad.put("mring.test.faults=drop=2", "mring.test.faults: ");
        bad.put("mring.group=10.1.2.3", "mring.*: ");
        for (Map.Entry<String, String> e : bad.entrySet()) {
            String[] kv = e.getKey().split("=", 2);
            assertThatThrownBy(() -> RingKeys.config(file(Map.of(kv[0], kv[1])), 3, Ring.Kind.M_RING)).as(e.getKey())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(FILE + ": ").hasMessageContaining(e.getValue());
        }
        assertThatThrownBy(() -> RingKeys.config(file(Map.of()), 32, Ring.Kind.U_RING))
                .hasMessage(FILE + ": members: members must be 1..31, got 32");
        // U-Ring does not use the datagram group, so its address is not checked.
        assertThat(RingKeys.config(file(Map.of("mring.group", "10.1.2.3")), 3, Ring.Kind.U_RING).mringGroup())
                .isEqualTo("10.1.2.3");
    }

    @Test
    @DisplayName("a builder setter refuses a value with the key's own message, as a cluster file does")
    void settersCheckThroughTheKeys() {
        RingConfig.Builder b = RingConfig.builder(3, Ring.Kind.U_RING);
        assertThatThrownBy(() -> b.mringPort(0)).hasMessage("mring.port must be 1..65535, got 0");
        assertThatThrownBy(() -> b.catchUp(Duration.ofMillis(-1))).hasMessage("ring.catchup.ms must be > 0, got -1 ms");
        assertThatThrownBy(() -> b.restartHold(Duration.ofMillis(-1))).hasMessage("ring.restart.hold.ms must be >= 0, got -1 ms");
        assertThatThrownBy(() -> b.mringLearnerBufferBytes(0)).hasMessage("mring.learner.buffer.bytes must be > 0, got 0");
        assertThatThrownBy(() -> b.mringTestFaults(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> b.heartbeat(null)).isInstanceOf(NullPointerException.class);
        RingConfig c = b.set(RingKeys.WINDOW, 8).build();
        assertThat(c.window()).isEqualTo(8);
        assertThat(c.toBuilder(Ring.Kind.M_RING, 5).build()).satisfies(m -> {
            assertThat(m.window()).isEqualTo(8);
            assertThat(m.members()).isEqualTo(5);
            assertThat(m.kind()).isEqualTo(Ring.Kind.M_RING);
        });
    }
}
