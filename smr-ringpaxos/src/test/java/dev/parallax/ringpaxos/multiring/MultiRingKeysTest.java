package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.config.Settings;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MultiRingKeysTest {

    private static final Path FILE = Path.of("cluster.properties");

    private static Settings file(Map<String, String> keys) {
        Properties p = new Properties();
        p.putAll(keys);
        return Settings.of(p, FILE);
    }

    @Test
    @DisplayName("seed 003 ch. 5: no multiring.* key gives the builder's defaults: k = 2 M-Ring rings, M = 1, λ = 20000/s, Δ = 5 ms")
    void defaults() {
        MultiRingConfig read = MultiRingKeys.config(Settings.of(Map.of()), 3, false);
        MultiRingConfig built = MultiRingConfig.builder(3).build();
        assertThat(read).hasToString(built.toString());
        assertThat(read.rings()).isEqualTo(MultiRingKeys.RINGS.defaultValue()).isEqualTo(MultiRingConfig.DEFAULT_RINGS);
        assertThat(read.roundLength()).isEqualTo(MultiRingKeys.M.defaultValue()).isEqualTo(1);
        assertThat(read.kind()).isEqualTo(Ring.Kind.M_RING);
        assertThat(read.lambda()).isEqualTo(MultiRingConfig.DEFAULT_LAMBDA);
        assertThat(read.skipInterval()).isEqualTo(Duration.ofMillis(5));
        for (int i = 0; i < read.streams(); i++) {
            assertThat(read.ring(i).mringPort()).isEqualTo(7400 + i);
        }
    }

    @Test
    @DisplayName("ring.member.ids lets every ring change its members, over that id space, every id from n up joining every ring")
    void ringMemberIdsLetEveryRingChangeItsMembers() {
        RingConfig template = RingConfig.builder(3, Ring.Kind.U_RING).memberIds(5).build();
        MultiRingConfig config = MultiRingConfig.builder(3).ringSettings(template).build();
        assertThat(config.membershipChanges()).isTrue();
        assertThat(config.idSpace()).isEqualTo(5);
        for (int i = 0; i < config.streams(); i++) {
            assertThat(config.ring(i).idSpace()).as("ring " + i).isEqualTo(5);
        }
        assertThat(MultiRingConfig.builder(3).ringSettings(RingConfig.builder(3, Ring.Kind.U_RING).build()).build()
                .membershipChanges()).isFalse();
        assertThat(config.topology().joiners(MultiRingTopology.GLOBAL)).containsExactly(3, 4);
    }

    @Test
    @DisplayName("the multiring.* keys and the ring keys every ring shares read into the configuration the builder makes")
    void settingsReadIntoTheBuildersConfiguration() {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("multiring.rings", "3");
        keys.put("multiring.kind", " U-Ring ");
        keys.put("multiring.m", "4");
        keys.put("ring.lambda", "5000");
        keys.put("ring.delta.ms", "2");
        keys.put("ring.window", "16");
        MultiRingConfig read = MultiRingKeys.config(file(keys), 3, false);
        MultiRingConfig built = MultiRingConfig.builder(3)
                .ringSettings(RingConfig.builder(3, Ring.Kind.U_RING).window(16).lambda(5000).skipInterval(Duration.ofMillis(2))
                        .build())
                .rings(3).roundLength(4).lambda(5000).skipInterval(Duration.ofMillis(2)).build();
        assertThat(read).hasToString(built.toString());
        assertThat(read.streams()).isEqualTo(4);
        assertThat(read.kind(3)).isEqualTo(Ring.Kind.U_RING);
        assertThat(read.ring(3).window()).isEqualTo(16);
        assertThat(read.ring(3).heartbeatNanos()).as("a default").isEqualTo(50_000_000L);
    }

    @Test
    @DisplayName("the configuration holds its keys' values: each setter writes its key, each accessor reads it back")
    void theConfigurationHoldsItsKeysValues() {
        MultiRingConfig defaults = MultiRingConfig.builder(3).build();
        for (var key : MultiRingKeys.VALUES.keys()) {
            assertThat(defaults.get(key)).as(key.name()).isEqualTo(key.defaultValue());
        }
        assertThat(MultiRingKeys.LAMBDA.defaultValue()).isEqualTo(MultiRingConfig.DEFAULT_LAMBDA);
        assertThat(MultiRingKeys.VALUES.key("ring.delta.ms")).containsSame(dev.parallax.ringpaxos.RingKeys.DELTA);
        MultiRingConfig named = MultiRingConfig.builder(3).rings(3).kind(Ring.Kind.U_RING).roundLength(4).lambda(5000)
                .skipInterval(Duration.ofMillis(2)).build();
        MultiRingConfig set = MultiRingConfig.builder(3).set(MultiRingKeys.RINGS, 3).set(MultiRingKeys.KIND, "u-ring")
                .set(MultiRingKeys.M, 4).set(MultiRingKeys.LAMBDA, 5000L).set(dev.parallax.ringpaxos.RingKeys.DELTA,
                        Duration.ofMillis(2)).build();
        assertThat(set).hasToString(named.toString());
        assertThat(named.get(MultiRingKeys.KIND)).isEqualTo("u-ring");
        assertThat(named.kind()).isEqualTo(Ring.Kind.U_RING);
        assertThatThrownBy(() -> MultiRingConfig.builder(3).lambda(RingConfig.MAX_LAMBDA + 1))
                .hasMessageContaining("ring.lambda must be 0 (off) .. " + RingConfig.MAX_LAMBDA);
        assertThatThrownBy(() -> MultiRingConfig.builder(3).set(dev.parallax.ringpaxos.RingKeys.LAMBDA, 5000L))
                .as("Ring Paxos's ring.lambda, whose default is 0, is not the one Multi-Ring holds")
                .hasMessageContaining("not a key of Multi-Ring Paxos");
        MultiRingTopology four = MultiRingTopology.builder(3).rings(4).build();
        assertThat(MultiRingConfig.builder(3).topology(four).build().get(MultiRingKeys.RINGS))
                .as("k not named: the topology's").isEqualTo(4);
    }

    @Test
    @DisplayName("the topology keys lay out the rings: per-ring kind and members, group to ring")
    void topologyKeys() {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("multiring.ring.1.kind", "u-ring");
        keys.put("multiring.ring.global.group", "239.255.80.9:7501");
        keys.put("multiring.group.2", "0");
        MultiRingConfig c = MultiRingKeys.config(file(keys), 3, false);
        assertThat(c.kind(0)).isEqualTo(Ring.Kind.M_RING);
        assertThat(c.kind(1)).isEqualTo(Ring.Kind.U_RING);
        assertThat(c.ring(2).mringPort()).isEqualTo(7501);
        assertThat(c.topology().ringOf(2)).isZero();
        assertThat(MultiRingKeys.TABLE.name()).isEqualTo("Multi-Ring Paxos");
        assertThat(MultiRingKeys.TABLE.knows("multiring.ring.global.members")).isTrue();
        assertThat(MultiRingKeys.TABLE.knows("multiring.ring.12.group")).isTrue();
        assertThat(MultiRingKeys.TABLE.knows("multiring.group.7")).isTrue();
        assertThat(MultiRingKeys.TABLE.knows("multiring.ring")).isFalse();
        assertThat(MultiRingKeys.TABLE.knows("multiring.ring.1.port")).isFalse();
    }

    @Test
    @DisplayName("a bad value is refused naming the file and the key")
    void badValuesNameTheFileAndTheKey() {
        Map<String, String> bad = new LinkedHashMap<>();
        bad.put("multiring.rings=0", "multiring.rings must be 1..64, got 0");
        bad.put("multiring.rings=65", "multiring.rings must be 1..64, got 65");
        bad.put("multiring.rings=two", "multiring.rings is not a whole number: 'two'");
        bad.put("multiring.kind=x-ring", "multiring.kind must be m-ring or u-ring, got 'x-ring'");
        bad.put("multiring.m=0", "multiring.m must be > 0, got 0");
        bad.put("ring.lambda=0", "ring.lambda must be > 0 for multi-ring");
        bad.put("ring.delta.ms=0", "ring.delta.ms must be > 0");
        bad.put("mring.port=65534", "mring.port");
        bad.put("multiring.ring.0.members=0,1", "multiring.ring.0.members=0,1 leaves out replica 2");
        bad.put("multiring.ring.0.group=nowhere", "multiring.ring.0.group");
        for (Map.Entry<String, String> e : bad.entrySet()) {
            String[] kv = e.getKey().split("=", 2);
            assertThatThrownBy(() -> MultiRingKeys.config(file(Map.of(kv[0], kv[1])), 3, false)).as(e.getKey())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(FILE + ": ").hasMessageContaining(e.getValue());
        }
        assertThat(MultiRingKeys.config(file(Map.of("mring.port", "65535", "multiring.rings", "1")), 3, false).ring(0).mringPort())
                .as("k = 1 has no global ring, so the last port is fine").isEqualTo(65535);
    }

    @Test
    @DisplayName("seed 004 (S-SMR) §VI: partitioned, partition p's ring defaults to the p-th block of n / k replicas")
    void partitions() {
        Settings two = file(Map.of("multiring.rings", "2"));
        assertThat(MultiRingKeys.partitions(two, 6)).isEqualTo(2);
        assertThat(MultiRingKeys.partitionOf(two, 6, 4)).isEqualTo(1);
        assertThat(MultiRingKeys.partitionMembers(two, 6)).containsExactly(new int[] {0, 1, 2}, new int[] {3, 4, 5});
        MultiRingConfig c = MultiRingKeys.config(two, 6, true);
        assertThat(c.topology().members(0)).containsExactly(0, 1, 2);
        assertThat(c.topology().members(MultiRingTopology.GLOBAL)).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(MultiRingKeys.config(two, 6, false).topology().members(0)).as("not partitioned: every ring on every replica")
                .containsExactly(0, 1, 2, 3, 4, 5);
        assertThatThrownBy(() -> MultiRingKeys.partitions(two, 9))
                .hasMessageStartingWith(FILE + ": ").hasMessageContaining("splits the 9 members into multiring.rings=2 partitions "
                        + "of equal size");
        Settings named = file(Map.of("multiring.rings", "2", "multiring.ring.0.members", "0,1", "multiring.ring.1.members", "2,3,4"));
        assertThat(MultiRingKeys.partitionMembers(named, 5)).containsExactly(new int[] {0, 1}, new int[] {2, 3, 4});
        Settings twice = file(Map.of("multiring.rings", "3", "multiring.ring.0.members", "0,1,2", "multiring.ring.1.members", "2,3,4",
                "multiring.ring.2.members", "5,6,7,8,0"));
        assertThatThrownBy(() -> MultiRingKeys.partitionOf(twice, 9, 0))
                .hasMessageContaining("replica 0 is in the rings of partitions 0 and 2");
        Settings none = file(Map.of("multiring.rings", "3", "multiring.ring.0.members", "0,1,2", "multiring.ring.1.members", "3,4,5",
                "multiring.ring.2.members", "6,7,0"));
        assertThatThrownBy(() -> MultiRingKeys.partitionMembers(none, 9)).hasMessageContaining("replica 8 is in no group ring");
    }
}
