package dev.parallax.bench.systems.zookeeper;

import dev.parallax.examples.volery.VoleryOracle;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The ZooKeeper-API workload of the Volery comparison (seed 004 (S-SMR / Eyrie / Volery) §VI): mix, paths, determinism. */
class ZkSessionOpsTest {
    private static final int OPS = 200_000;

    private static List<ZkSessionOps.Op> run(ZkWorkload workload, int session, int n) {
        ZkSessionOps ops = new ZkSessionOps(workload, session);
        List<ZkSessionOps.Op> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(ops.next());
        }
        return out;
    }

    @Test
    @DisplayName("seed 004 §VI: the share of global commands (create/delete) is g within 0.5 points over a seeded run, for g = 0, 1, 5, 10, 100 %")
    void theGlobalShareIsTheFractionAsked() {
        for (double percent : new double[] {0, 1, 5, 10, 100}) {
            List<ZkSessionOps.Op> ops = run(ZkWorkload.globalPercent(percent), 3, OPS);
            long global = ops.stream().filter(o -> o.kind() != ZkSessionOps.Kind.SET_DATA).count();
            assertThat((double) global / OPS).as("%s %%", percent).isCloseTo(percent / 100, org.assertj.core.data.Offset.offset(0.005));
        }
        assertThat(run(ZkWorkload.DEFAULT, 0, 10_000)).allMatch(o -> o.kind() == ZkSessionOps.Kind.SET_DATA);
    }

    @Test
    @DisplayName("global commands alternate: a create of a fresh znode, then a delete of the oldest one the session created and did not delete")
    void everyDeleteNamesAZnodeTheSessionCreatedBefore() {
        List<ZkSessionOps.Op> ops = run(ZkWorkload.globalPercent(10), 7, OPS);
        Deque<String> live = new ArrayDeque<>();
        Set<String> everCreated = new HashSet<>();
        int creates = 0;
        int deletes = 0;
        for (ZkSessionOps.Op op : ops) {
            switch (op.kind()) {
                case CREATE -> {
                    assertThat(everCreated.add(op.path())).as("fresh: %s", op.path()).isTrue();
                    assertThat(op.path()).startsWith("/bench-7/t-");
                    live.addLast(op.path());
                    creates++;
                }
                case DELETE -> {
                    assertThat(live.pollFirst()).as("the oldest live znode").isEqualTo(op.path());
                    deletes++;
                }
                case SET_DATA -> assertThat(op.path()).startsWith("/bench-7/d-");
                default -> throw new AssertionError(op);
            }
            assertThat(live.size()).isLessThanOrEqualTo(1);
        }
        assertThat(creates - deletes).isBetween(0, 1);
        assertThat(creates).isGreaterThan(5_000);
    }

    @Test
    @DisplayName("seed 004 §V-B: the data znodes are balanced exactly over CRC32(path) mod 8, so over 1, 2, 4 and 8 partitions, "
            + "and setData spreads over the partitions")
    void dataZnodesAndSetDataSpreadOverThePartitions() {
        ZkSessionOps ops = new ZkSessionOps(ZkWorkload.DEFAULT, 5);
        assertThat(ops.parent()).isEqualTo("/bench-5");
        assertThat(ops.dataPaths()).hasSize(ZkWorkload.DEFAULT_DATA_ZNODES).doesNotHaveDuplicates()
                .allMatch(p -> p.startsWith("/bench-5/d-"));
        for (int partitions : new int[] {1, 2, 4, 8}) {
            int[] perPartition = new int[partitions];
            ops.dataPaths().forEach(p -> perPartition[VoleryOracle.partitionOf(p, partitions)]++);
            assertThat(perPartition).as("P = %d", partitions).containsOnly(ZkWorkload.DEFAULT_DATA_ZNODES / partitions);
        }
        List<ZkSessionOps.Op> setData = run(ZkWorkload.DEFAULT, 5, OPS);
        for (int partitions : new int[] {2, 4}) {
            int[] perPartition = new int[partitions];
            setData.forEach(o -> perPartition[VoleryOracle.partitionOf(o.path(), partitions)]++);
            for (int count : perPartition) {
                assertThat((double) count / OPS).as("P = %d", partitions)
                        .isCloseTo(1.0 / partitions, org.assertj.core.data.Offset.offset(0.01));
            }
        }
        assertThat(ZkSessionOps.balancedPaths("/x", 3)).hasSize(3)
                .extracting(p -> VoleryOracle.partitionOf(p, 8)).doesNotHaveDuplicates();
    }

    @Test
    void theSequenceIsDeterministicPerSeedAndSession() {
        ZkWorkload w = ZkWorkload.globalPercent(10);
        assertThat(run(w, 2, 5_000)).isEqualTo(run(w, 2, 5_000));
        assertThat(run(w, 2, 5_000)).isNotEqualTo(run(w, 3, 5_000).stream()
                .map(o -> new ZkSessionOps.Op(o.kind(), o.path().replace("/bench-3/", "/bench-2/"))).toList());
        assertThat(run(w, 2, 5_000)).isNotEqualTo(run(new ZkWorkload(0.1, ZkWorkload.DEFAULT_DATA_ZNODES, 99), 2, 5_000));
    }

    @Test
    void badWorkloadsAreRefusedAndNamesCarryTheGlobalShare() {
        assertThatThrownBy(() -> ZkWorkload.globalPercent(101)).hasMessageContaining("0..100");
        assertThatThrownBy(() -> ZkWorkload.globalPercent(Double.NaN)).hasMessageContaining("0..100");
        assertThatThrownBy(() -> new ZkWorkload(-0.1, 16, 1)).hasMessageContaining("0..1");
        assertThatThrownBy(() -> new ZkWorkload(0.1, 0, 1)).hasMessageContaining("1..65536");
        assertThatThrownBy(() -> new ZkSessionOps(ZkWorkload.DEFAULT, -1)).hasMessageContaining(">= 0");
        assertThat(ZkWorkload.DEFAULT.nameSuffix()).isEmpty();
        assertThat(ZkWorkload.globalPercent(10).nameSuffix()).isEqualTo("-g10");
        assertThat(ZkWorkload.globalPercent(0.5).nameSuffix()).isEqualTo("-g0.5");
        assertThat(ZkWorkload.globalPercent(10).describe()).startsWith("10 % global");
    }
}
