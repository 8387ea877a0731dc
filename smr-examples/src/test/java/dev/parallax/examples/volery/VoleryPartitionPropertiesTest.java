package dev.parallax.examples.volery;

import dev.parallax.core.GroupSet;
import dev.parallax.scheduler.ssmr.IdealSsmr;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Volery under an ideal S-SMR run ({@link IdealSsmr}) behaves like one sequential
 * {@link ZnodeTree}: for random operation sequences and P = 1..4 partitions, every replica of every
 * involved partition gives the same reply, and it is the reply of the sequential tree fed the same
 * zxid rule (create/delete: g++ then g&lt;&lt;32; setData: the owner's n++ then g&lt;&lt;32|n) — with
 * commands multicast to exactly the oracle's partitions, to more (an over-approximating oracle), or
 * to too few (every involved replica then fails with WrongPartitions and nothing changes), malformed
 * commands, and replicas replaced by a copy restored from a snapshot midway.
 */
class VoleryPartitionPropertiesTest {
    /** Paths the operations pick from, besides those sequential creates made. */
    private static final List<String> PATHS = List.of("/", "/a", "/b", "/a/x", "/a/y", "/b/z", "/a/x/k", "/c",
            "/a/s-", "/s-", "a", "/a/");

    @Property(tries = 250)
    void everyInvolvedReplicaRepliesLikeOneSequentialTree(@ForAll @IntRange(min = 1, max = 4) int partitions,
                                                          @ForAll("ops") List<Op> ops,
                                                          @ForAll @IntRange(min = 0, max = 80) int restoreAt) {
        IdealSsmr<VoleryPartition> ssmr = VoleryPartitionTest.ideal(partitions);
        VoleryOracle oracle = new VoleryOracle(partitions);
        ZnodeTree reference = new ZnodeTree();
        long globals = 0;
        long[] locals = new long[partitions];
        List<String> paths = new ArrayList<>(PATHS);
        for (int i = 0; i < ops.size(); i++) {
            if (i == restoreAt) {
                ssmr.restoreFromSnapshots(1);
            }
            Op op = ops.get(i);
            VoleryCommand command = op.command(paths.get(Math.floorMod(op.pathPick, paths.size())));
            byte[] bytes = command == null ? op.garbage : command.encode();
            if (command == null) {
                command = VoleryCommand.decode(bytes).command(); // garbage may happen to be a command
            }
            GroupSet route = oracle.route(ByteBuffer.wrap(bytes));
            GroupSet involved = op.involved(route, partitions);
            Map<String, String> outcomes = ssmr.run(bytes, involved);
            assertThat(outcomes.keySet()).hasSize(involved.size() * VoleryPartitionTest.REPLICAS);
            boolean tooFew = (route.bits() & ~involved.bits()) != 0;
            String expected;
            if (command == null) {
                expected = HexFormat.of().formatHex(ZkReply.malformed().encode());
            } else if (tooFew) {
                expected = null; // WrongPartitions, checked below; the reference does not execute it
            } else {
                long zxid = 0;
                if (command.isGlobal()) {
                    globals++;
                    Arrays.fill(locals, 0);
                    zxid = globals << 32;
                } else if (command.isWrite()) {
                    int owner = oracle.partitionOf(command.path());
                    zxid = globals << 32 | ++locals[owner];
                } else {
                    zxid = globals << 32 | locals[oracle.partitionOf(command.path())]; // a read: the owner's last zxid
                }
                ZkReply reply = reference.apply(command, zxid, command.time());
                Statistics.label("replies").collect(command.getClass().getSimpleName() + " " + reply.code());
                if (reply.isOk() && reply.path() != null) {
                    paths.add(reply.path());
                }
                expected = HexFormat.of().formatHex(reply.encode());
            }
            if (expected == null) {
                assertThat(outcomes.values()).as("step %d: %s to %s", i, command, involved)
                        .allSatisfy(o -> assertThat(o).startsWith("WrongPartitions"));
                assertThat(new HashSet<>(outcomes.values())).hasSize(1);
            } else {
                assertThat(outcomes.values()).as("step %d: %s to %s", i, command, involved)
                        .allSatisfy(o -> assertThat(o).isEqualTo(expected));
            }
        }
        for (List<Long> partition : ssmr.digests()) {
            assertThat(partition).as("replicas of a partition agree").containsOnly(partition.get(0));
        }
        for (int p = 0; p < partitions; p++) {
            assertThat(ssmr.replica(p, 0).size()).as("every partition holds the whole hierarchy")
                    .isEqualTo(reference.size());
        }
        for (String path : paths) {
            int owner = oracle.partitionOf(path);
            ZkReply atOwner = ZkReply.decode(HexFormat.of().parseHex(
                    ssmr.run(new GetData(path).encode(), GroupSet.of(owner)).get(owner + "/1")));
            assertThat(atOwner).as("the owner's copy of %s is current", path).isEqualTo(reference.getData(path).withZxid(globals << 32 | locals[owner]));
        }
    }

    /**
     * One random operation: its kind, a pick among the known paths, a version, data, a time, how to
     * choose the partitions (0-5 the oracle's, 6-7 more, 8 too few) and bits for the extra or missing
     * partitions.
     */
    record Op(int kind, int pathPick, int version, byte[] data, long time, int destMode, long destBits,
              byte[] garbage) {
        VoleryCommand command(String path) {
            return switch (kind) {
                case 0 -> new Create(path, data, CreateMode.PERSISTENT, time);
                case 1 -> new Create(path, data, CreateMode.PERSISTENT_SEQUENTIAL, time);
                case 2 -> new Create(path, data, CreateMode.CONTAINER, time);
                case 3, 4 -> new Delete(path, version);
                case 5, 6 -> new SetData(path, data, version, time);
                case 7 -> new GetData(path);
                case 8 -> new Exists(path);
                case 9 -> new GetChildren(path);
                default -> null; // malformed bytes
            };
        }

        GroupSet involved(GroupSet route, int partitions) {
            long all = GroupSet.partition(partitions).bits();
            if (destMode == 8 && partitions > 1) {
                // too few: drop a random non-empty part of the route, add unrelated partitions
                long dropped = route.bits() & (destBits | Long.lowestOneBit(route.bits()));
                long rest = (route.bits() & ~dropped) | (destBits >>> 8 & all & ~route.bits());
                if (rest == 0) {
                    rest = all & ~dropped;
                }
                return rest == 0 ? route : GroupSet.ofBits(rest);
            }
            if (destMode >= 6) {
                return GroupSet.ofBits(route.bits() | (destBits & all));
            }
            return route;
        }
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Integer> kind = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.of(0, 1)), Tuple.of(1, Arbitraries.just(2)), Tuple.of(4, Arbitraries.of(3, 4)),
                Tuple.of(5, Arbitraries.of(5, 6)), Tuple.of(3, Arbitraries.of(7, 8, 9)), Tuple.of(1, Arbitraries.just(10)));
        Arbitrary<Integer> pick = Arbitraries.integers().between(0, 1_000);
        Arbitrary<Integer> version = Arbitraries.integers().between(-1, 2);
        Arbitrary<byte[]> data = Arbitraries.bytes().array(byte[].class).ofMaxSize(4);
        Arbitrary<Long> time = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(0L)),
                Tuple.of(3, Arbitraries.longs().between(1, 1L << 42)));
        Arbitrary<Integer> destMode = Arbitraries.integers().between(0, 8);
        Arbitrary<Long> destBits = Arbitraries.longs();
        Arbitrary<byte[]> garbage = Arbitraries.bytes().array(byte[].class).ofMaxSize(12);
        return Combinators.combine(kind, pick, version, data, time, destMode, destBits, garbage).as(Op::new)
                .list().ofMinSize(5).ofMaxSize(80);
    }
}
