package dev.parallax.examples.volery;

import dev.parallax.core.GroupSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Volery's oracle: CRC32(path) mod P, local commands to the owner, create and delete to all. */
class VoleryOracleTest {

    @Test
    void theOwnerIsCrc32OfTheUtf8PathModP() {
        VoleryOracle oracle = new VoleryOracle(4);
        for (String path : new String[] {"/", "/a", "/a/b", "/ü/ß", "/zookeeper"}) {
            CRC32 crc = new CRC32();
            crc.update(path.getBytes(StandardCharsets.UTF_8));
            assertThat(oracle.partitionOf(path)).isEqualTo((int) (crc.getValue() % 4));
        }
        // a fixed value, so that every version routes a path alike: CRC32("123456789") = 0xCBF43926
        assertThat(new VoleryOracle(7).partitionOf("123456789")).isEqualTo((int) (0xCBF43926L % 7));
    }

    @Test
    void localCommandsGoToTheOwnerAndGlobalOnesToAll() {
        VoleryOracle oracle = new VoleryOracle(3);
        String path = "/x";
        GroupSet owner = GroupSet.of(oracle.partitionOf(path));
        assertThat(oracle.route(new GetData(path))).isEqualTo(owner);
        assertThat(oracle.route(new Exists(path))).isEqualTo(owner);
        assertThat(oracle.route(new GetChildren(path))).isEqualTo(owner);
        assertThat(oracle.route(new SetData(path, new byte[1], 0))).isEqualTo(owner);
        assertThat(oracle.route(new Create(path, new byte[1], CreateMode.PERSISTENT)))
                .isEqualTo(GroupSet.of(0, 1, 2));
        assertThat(oracle.route(new Delete(path, -1))).isEqualTo(GroupSet.of(0, 1, 2));
        assertThat(oracle.partitions()).isEqualTo(3);
    }

    @Test
    void routingBytesDecodesInPlaceAndSendsMalformedBytesToTheDefaultGroup() {
        VoleryOracle oracle = new VoleryOracle(5);
        byte[] encoded = new SetData("/k", new byte[] {1}, 0).encode();
        ByteBuffer b = ByteBuffer.wrap(encoded);
        assertThat(oracle.route(b)).isEqualTo(GroupSet.of(oracle.partitionOf("/k")));
        assertThat(b.position()).isZero();
        assertThat(b.limit()).isEqualTo(encoded.length);
        assertThat(oracle.route(ByteBuffer.wrap(new byte[] {42}))).isEqualTo(GroupSet.DEFAULT);
        assertThat(oracle.route(ByteBuffer.allocate(0))).isEqualTo(GroupSet.DEFAULT);
        assertThat(oracle.route(ByteBuffer.wrap(new Delete("/k", 0).encode())))
                .isEqualTo(GroupSet.partition(5));
    }

    @Test
    void theStaticOwnerFunctionIsTheOraclesAndRefusesNoPartitions() {
        for (int partitions = 1; partitions <= 5; partitions++) {
            VoleryOracle oracle = new VoleryOracle(partitions);
            for (String path : new String[] {"/", "/a", "/a/b", "/ü/ß", ""}) {
                assertThat(VoleryOracle.partitionOf(path, partitions)).isEqualTo(oracle.partitionOf(path));
            }
        }
        assertThatThrownBy(() -> VoleryOracle.partitionOf("/a", 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void onePartitionOwnsEverything() {
        VoleryOracle oracle = new VoleryOracle(1);
        assertThat(oracle.route(new GetData("/any"))).isEqualTo(GroupSet.DEFAULT);
        assertThat(oracle.route(new Delete("/any", 0))).isEqualTo(GroupSet.DEFAULT);
    }

    @Test
    void partitionCountsOutsideTheGroupRangeAreRejected() {
        assertThatThrownBy(() -> new VoleryOracle(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new VoleryOracle(GroupSet.MAX_GROUP + 2)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new VoleryOracle(GroupSet.MAX_GROUP + 1).partitions()).isEqualTo(64);
    }

    @Property(tries = 50)
    void pathsSpreadOverEveryPartition(@ForAll @IntRange(min = 1, max = 8) int partitions) {
        VoleryOracle oracle = new VoleryOracle(partitions);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            int p = oracle.partitionOf("/node-" + i);
            assertThat(p).isBetween(0, partitions - 1);
            seen.add(p);
        }
        assertThat(seen).hasSize(partitions);
    }
}
