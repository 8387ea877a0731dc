package dev.parallax.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** ConfigKey, KeyTable, Settings, ConfigValues and NearestKey: one key declared once, read from text or set in code alike. */
class ConfigKeysTest {

    static final ConfigKey<Integer> WINDOW = ConfigKey.integer("t.window", 10, 1, Integer.MAX_VALUE, "WND.");
    static final ConfigKey<Integer> TTL = ConfigKey.integer("t.ttl", 1, 0, 255, "TTL.");
    static final ConfigKey<Long> BYTES = ConfigKey.longInteger("t.bytes", 64L, 0, Long.MAX_VALUE, "Bytes.");
    static final ConfigKey<Duration> HEARTBEAT = ConfigKey.millis("t.heartbeat.ms", 50, 1, 60_000, "Heartbeat.");
    static final ConfigKey<Duration> HOLD = ConfigKey.millis("t.hold.ms", 0, 0, Long.MAX_VALUE, "Hold.");
    static final ConfigKey<String> GROUP = ConfigKey.text("t.group", "239.255.80.1", false, "Group.");
    static final ConfigKey<String> SYNC = ConfigKey.choice("t.sync", "every-batch", "Sync.", "every-batch", "periodic", "none");
    static final KeyTable TABLE = KeyTable.builder("Test").keys(WINDOW, TTL, BYTES, HEARTBEAT, HOLD, GROUP, SYNC)
            .family("t.cert.<id>", "t\\.cert\\.\\d+", "A certificate.").build();

    @Test
    @DisplayName("text is parsed and checked; absent keys answer their defaults")
    void parsesAndDefaults() {
        Settings s = Settings.of(Map.of("t.window", " 32 ", "t.heartbeat.ms", "20", "t.sync", " Periodic", "t.group", " 239.1.1.1 "));
        assertThat(s.get(WINDOW)).isEqualTo(32);
        assertThat(s.get(HEARTBEAT)).isEqualTo(Duration.ofMillis(20));
        assertThat(s.get(SYNC)).isEqualTo("periodic");
        assertThat(s.get(GROUP)).isEqualTo("239.1.1.1");
        assertThat(s.get(TTL)).isEqualTo(1);
        assertThat(s.find(TTL)).isEmpty();
        assertThat(s.find(WINDOW)).contains(32);
    }

    @Test
    @DisplayName("every refusal names the source and the key, in the same words whichever way the value came")
    void refusalsNameTheKey() {
        Settings s = Settings.of(Map.of("t.window", "0", "t.ttl", "256", "t.heartbeat.ms", "0", "t.hold.ms", "-1",
                "t.sync", "sometimes", "t.group", " ", "t.bytes", "1MB"));
        assertThatThrownBy(() -> s.get(WINDOW)).hasMessage("configuration: t.window must be > 0, got 0");
        assertThatThrownBy(() -> s.get(TTL)).hasMessage("configuration: t.ttl must be 0..255, got 256");
        assertThatThrownBy(() -> s.get(HEARTBEAT)).hasMessage("configuration: t.heartbeat.ms must be > 0, got 0 ms");
        assertThatThrownBy(() -> s.get(HOLD)).hasMessage("configuration: t.hold.ms must be >= 0, got -1 ms");
        assertThatThrownBy(() -> s.get(SYNC)).hasMessage("configuration: t.sync must be every-batch, periodic or none, got 'sometimes'");
        assertThatThrownBy(() -> s.get(GROUP)).hasMessage("configuration: t.group must not be empty");
        assertThatThrownBy(() -> s.get(BYTES)).hasMessage("configuration: t.bytes is not a whole number: '1MB'");
        assertThatThrownBy(() -> WINDOW.check(0)).hasMessage("t.window must be > 0, got 0");
        assertThatThrownBy(() -> HEARTBEAT.check(Duration.ofMinutes(2))).hasMessage("t.heartbeat.ms must be 1..60000, got 120000 ms");
        assertThat(HEARTBEAT.check(Duration.ofNanos(500))).as("a positive sub-millisecond duration is positive")
                .isEqualTo(Duration.ofNanos(500));
    }

    @Test
    @DisplayName("an extra check runs after the type's own")
    void extraCheck() {
        ConfigKey<Integer> packet = ConfigKey.integer("t.packet", 8192, 512, Integer.MAX_VALUE, "Packet.").andCheck(n -> {
            if (n > 65507) {
                throw new IllegalArgumentException("t.packet must be <= 65507 (one UDP datagram), got " + n);
            }
            return n;
        });
        assertThatThrownBy(() -> packet.check(100)).hasMessage("t.packet must be >= 512, got 100");
        assertThatThrownBy(() -> packet.check(70000)).hasMessageContaining("one UDP datagram");
        assertThat(packet.parse("9000")).isEqualTo(9000);
    }

    @Test
    @DisplayName("unknown keys are refused, each with the nearest known key when it looks like a typo")
    void unknownKeys() {
        Settings s = Settings.of(Map.of("t.windw", "3", "t.cert.0", "a.pem", "colour", "red", "t.window", "3"));
        assertThatThrownBy(() -> s.requireKnown(List.of(TABLE)))
                .hasMessageContaining("unknown keys 'colour', 't.windw' (did you mean t.window?)");
        Settings ok = Settings.of(Map.of("t.cert.12", "a.pem", "t.window", "3"));
        ok.requireKnown(List.of(TABLE));
        assertThat(NearestKey.suggest("ring.windw", List.of("ring.window", "ring.batch.bytes"))).contains("ring.window");
        assertThat(NearestKey.suggest("zzzzzz", List.of("ring.window"))).isEmpty();
        assertThat(NearestKey.distance("kitten", "sitting", 10)).isEqualTo(3);
    }

    @Test
    @DisplayName("ConfigValues: set values are checked, the rest answer defaults; a foreign key is refused")
    void configValues() {
        ConfigValues.Builder b = ConfigValues.builder(TABLE).set(WINDOW, 7);
        assertThatThrownBy(() -> b.set(WINDOW, -1)).hasMessage("t.window must be > 0, got -1");
        ConfigKey<Integer> foreign = ConfigKey.integer("t.other", 1, 1, 2, "Other.");
        assertThatThrownBy(() -> b.set(foreign, 1)).hasMessageContaining("not a key of Test");
        b.setAll(Settings.of(Map.of("t.ttl", "9", "t.window", "8")));
        ConfigValues v = b.build();
        assertThat(v.get(WINDOW)).isEqualTo(8);
        assertThat(v.get(TTL)).isEqualTo(9);
        assertThat(v.get(BYTES)).isEqualTo(64L);
        assertThat(v.toBuilder().set(TTL, 3).build().get(TTL)).isEqualTo(3);
        assertThat(v.get(TTL)).as("immutable").isEqualTo(9);
    }

    @Test
    @DisplayName("relative paths resolve against the file's directory; errors name the file")
    void pathsAndSource() {
        Settings s = Settings.of(new java.util.Properties(), Path.of("/etc/parallax/cluster.properties"));
        assertThat(s.path("certs/ca.crt")).isEqualTo(Path.of("/etc/parallax/certs/ca.crt"));
        assertThat(s.path("/abs/ca.crt")).isEqualTo(Path.of("/abs/ca.crt"));
        assertThat(s.error("x").getMessage()).isEqualTo("/etc/parallax/cluster.properties: x");
        assertThatThrownBy(() -> KeyTable.of("Dup", WINDOW, WINDOW)).hasMessageContaining("declared twice");
    }
}
