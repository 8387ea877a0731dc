package dev.parallax.examples.kv;

import dev.parallax.core.GroupSet;
import dev.parallax.scheduler.ssmr.IdealSsmr;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link KvPartition} (seed 004 (S-SMR) §IV Alg. 1) against a sequential {@link KvStateMachine}:
 * random command sequences over P = 1..4 partitions run through an ideal S-SMR ({@link IdealSsmr}),
 * each routed by {@link KvRouter} (the clients' oracle), sometimes to more partitions than needed
 * and sometimes to too few; every replica of every involved partition must answer the sequential
 * store's bytes (or its error), a command sent to too few partitions must fail with WrongPartitions
 * everywhere and change nothing, and the partitions together must hold the sequential store's entries.
 */
class KvPartitionTest {
    private static final int REPLICAS = 2;
    private static final int KEYS = 10;

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static String sequential(KvStateMachine store, byte[] command) {
        try {
            return HexFormat.of().formatHex(bytes(store.execute(ByteBuffer.wrap(command))));
        } catch (RuntimeException e) {
            return IdealSsmr.error(e);
        }
    }

    private static IdealSsmr<KvPartition> ideal(int partitions) {
        return new IdealSsmr<>(partitions, REPLICAS, p -> new KvPartition(partitions), KvPartition::digest);
    }

    private static byte[] malformed(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> new byte[] {42, 0, 0, 0, 0};                                     // unknown op
            case 1 -> new byte[] {KvOp.GET.code(), 0, 0, 0, 2, 0, 0, 0, 1, 'k'};       // wrong arg count
            case 2 -> new byte[] {KvOp.DBSIZE.code(), 0, 0, 0, 1, 0, 0, 0, 0};          // DBSIZE with an argument
            default -> new byte[] {KvOp.MGET.code(), 0, 0};                             // truncated
        };
    }

    /** Checks one run; returns nothing, asserts everything. */
    private static void check(int partitions, long seed, int count) {
        Random random = new Random(seed);
        KvCommandMix mix = new KvCommandMix(seed, KEYS);
        KvRouter router = new KvRouter(partitions);
        KvStateMachine reference = new KvStateMachine();
        IdealSsmr<KvPartition> ssmr = ideal(partitions);
        GroupSet all = GroupSet.partition(partitions);
        for (int i = 0; i < count; i++) {
            byte[] command = random.nextInt(20) == 0 ? malformed(random) : mix.next(1).get(0);
            GroupSet routed = router.route(ByteBuffer.wrap(command));
            GroupSet dests = routed;
            int r = random.nextInt(10);
            if (r == 0) {
                dests = GroupSet.ofBits(routed.bits() | 1L << random.nextInt(partitions)); // over-approximated
            } else if (r == 1 && routed.size() > 1) {
                dests = GroupSet.of(routed.first()); // under-approximated
            } else if (r == 2) {
                dests = all;
            }
            Map<String, String> outcomes = ssmr.run(command, dests);
            boolean malformed = isMalformed(command);
            if (!malformed && (routed.bits() & ~dests.bits()) != 0) {
                assertThat(outcomes.values()).as("command %d sent to %s, needs %s", i, dests, routed)
                        .containsOnly("WrongPartitions" + GroupSet.ofBits(routed.bits() | dests.bits()));
                continue;
            }
            String expected = sequential(reference, command);
            assertThat(outcomes.values()).as("command %d (%s) to %s", i, describe(command), dests).containsOnly(expected);
        }
        // The partitions together hold the sequential store's entries, each at its owner.
        int size = 0;
        for (int p = 0; p < partitions; p++) {
            size += ssmr.replica(p, 0).size();
            assertThat(ssmr.digests().get(p)).as("digests within partition %d", p).containsOnly(ssmr.digests().get(p).get(0));
        }
        assertThat(size).isEqualTo(reference.size());
        for (int k = 0; k < KEYS; k++) {
            byte[] key = ("k" + k).getBytes(StandardCharsets.US_ASCII);
            for (int r = 0; r < REPLICAS; r++) {
                assertThat(ssmr.replica(router.groupOf(key), r).valueOf(key)).isEqualTo(reference.valueOf(key));
            }
        }
        // A replica restored from a snapshot continues alike.
        ssmr.restoreFromSnapshots(1);
        byte[] probe = KvCommand.of(KvOp.MGET, "k0".getBytes(StandardCharsets.US_ASCII), "k1".getBytes(StandardCharsets.US_ASCII),
                "k2".getBytes(StandardCharsets.US_ASCII)).encode().array();
        assertThat(ssmr.run(probe, router.route(ByteBuffer.wrap(probe))).values()).containsOnly(sequential(reference, probe));
        for (int p = 0; p < partitions; p++) {
            assertThat(ssmr.digests().get(p)).containsOnly(ssmr.digests().get(p).get(0));
        }
    }

    private static boolean isMalformed(byte[] command) {
        try {
            KvCommand.decode(ByteBuffer.wrap(command));
            return false;
        } catch (IllegalArgumentException e) {
            return true;
        }
    }

    private static String describe(byte[] command) {
        return isMalformed(command) ? "malformed" : KvCommand.decode(ByteBuffer.wrap(command)).toString();
    }

    @Property(tries = 60)
    @Label("seed 004 §IV: random sequences over P = 1..4 partitions answer as the sequential store, at every replica")
    void answersAsTheSequentialStore(@ForAll @IntRange(min = 1, max = 4) int partitions, @ForAll long seed) {
        check(partitions, seed, 150);
    }

    @Test
    @DisplayName("an MGET across partitions is assembled in key order; DEL and EXISTS count every partition's keys; DBSIZE sums")
    void multiKeyAcrossPartitions() {
        int partitions = 3;
        KvRouter router = new KvRouter(partitions);
        // Three keys in three different partitions.
        byte[][] keys = new byte[3][];
        int found = 0;
        for (int i = 0; found < 3; i++) {
            byte[] k = ("key" + i).getBytes(StandardCharsets.US_ASCII);
            boolean fresh = true;
            for (int j = 0; j < found; j++) {
                fresh &= router.groupOf(keys[j]) != router.groupOf(k);
            }
            if (fresh) {
                keys[found++] = k;
            }
        }
        IdealSsmr<KvPartition> ssmr = ideal(partitions);
        KvStateMachine reference = new KvStateMachine();
        List<KvCommand> script = List.of(
                KvCommand.of(KvOp.MSET, keys[0], "a".getBytes(StandardCharsets.US_ASCII), keys[2], "c".getBytes(StandardCharsets.US_ASCII)),
                KvCommand.of(KvOp.MGET, keys[2], keys[1], keys[0], keys[2]),
                KvCommand.of(KvOp.EXISTS, keys[0], keys[0], keys[1], keys[2]),
                KvCommand.of(KvOp.DBSIZE),
                KvCommand.of(KvOp.DEL, keys[0], keys[0], keys[1], keys[2]),
                KvCommand.of(KvOp.DBSIZE),
                KvCommand.of(KvOp.INCR, keys[1]),
                KvCommand.of(KvOp.FLUSHALL),
                KvCommand.of(KvOp.DBSIZE));
        for (KvCommand c : script) {
            byte[] command = c.encode().array();
            GroupSet dests = router.route(ByteBuffer.wrap(command));
            assertThat(ssmr.run(command, dests).values()).as("%s", c).containsOnly(sequential(reference, command));
        }
        assertThat(sequential(new KvStateMachine(), KvCommand.of(KvOp.DBSIZE).encode().array()))
                .isEqualTo(HexFormat.of().formatHex(bytes(KvReplyFormat.integer(0))));
        // STRLEN reads its key's value at the owner; sent to every partition, the owner sends it.
        byte[] set = KvCommand.of(KvOp.SET, keys[1], "four".getBytes(StandardCharsets.US_ASCII)).encode().array();
        ssmr.run(set, router.route(ByteBuffer.wrap(set)));
        sequential(reference, set);
        byte[] strlen = KvCommand.of(KvOp.STRLEN, keys[1]).encode().array();
        assertThat(router.route(ByteBuffer.wrap(strlen))).isEqualTo(GroupSet.of(router.groupOf(keys[1])));
        String four = HexFormat.of().formatHex(bytes(KvReplyFormat.integer(4)));
        assertThat(sequential(reference, strlen)).isEqualTo(four);
        for (GroupSet dests : List.of(router.route(ByteBuffer.wrap(strlen)), GroupSet.partition(partitions))) {
            assertThat(ssmr.run(strlen, dests).values()).as("STRLEN to %s", dests).containsOnly(four);
        }
    }

    @Test
    @DisplayName("INCR of a non-integer across partitions fails alike everywhere and changes nothing; a key sent to the wrong partition gets WrongPartitions")
    void errorsAlike() {
        int partitions = 2;
        KvRouter router = new KvRouter(partitions);
        IdealSsmr<KvPartition> ssmr = ideal(partitions);
        KvStateMachine reference = new KvStateMachine();
        byte[] key = "x".getBytes(StandardCharsets.US_ASCII);
        int owner = router.groupOf(key);
        byte[] set = KvCommand.of(KvOp.SET, key, "notanumber".getBytes(StandardCharsets.US_ASCII)).encode().array();
        ssmr.run(set, GroupSet.of(owner));
        sequential(reference, set);
        byte[] incr = KvCommand.of(KvOp.INCR, key).encode().array();
        Map<String, String> outcomes = ssmr.run(incr, GroupSet.partition(partitions));
        assertThat(outcomes).hasSize(2 * REPLICAS);
        assertThat(outcomes.values()).containsOnly(sequential(reference, incr))
                .allSatisfy(o -> assertThat(o).contains(KvStateMachine.NOT_AN_INTEGER));
        byte[] get = KvCommand.of(KvOp.GET, key).encode().array();
        assertThat(ssmr.run(get, GroupSet.of(1 - owner)).values())
                .containsOnly("WrongPartitions" + GroupSet.partition(partitions));
    }

    @Test
    @DisplayName("bad input: values from another partition that do not parse fail the command (the same on every replica) "
            + "and change nothing")
    void malformedValuesFailTheCommandAndChangeNothing() {
        KvRouter router = new KvRouter(2);
        byte[] mine = null;
        byte[] theirs = null;
        for (int i = 0; mine == null || theirs == null; i++) {
            byte[] k = ("m" + i).getBytes(StandardCharsets.US_ASCII);
            if (router.groupOf(k) == 0 && mine == null) {
                mine = k;
            } else if (router.groupOf(k) == 1 && theirs == null) {
                theirs = k;
            }
        }
        KvPartition partition = new KvPartition(2);
        partition.execute(KvCommand.of(KvOp.SET, mine, "v".getBytes(StandardCharsets.US_ASCII)).encode(), context(null));
        long before = partition.digest();
        GroupSet both = GroupSet.of(0, 1);
        ByteBuffer delete = KvCommand.of(KvOp.DEL, mine, theirs).encode();
        assertThat(partition.remoteReads(delete, new IdealSsmr.View(0, 2, both))).isEqualTo(GroupSet.of(1));
        for (byte[] garbage : List.of(new byte[0], new byte[] {7}, new byte[] {1, 0}, new byte[] {0, 0})) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> partition.execute(delete.duplicate(), context(garbage)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("malformed KV values");
            assertThat(partition.digest()).isEqualTo(before);
        }
        ByteBuffer size = KvCommand.of(KvOp.DBSIZE).encode();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> partition.execute(size, context(new byte[3])))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("a size of 3 bytes");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new KvPartition(3).execute(size.duplicate(), context(new byte[8])))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("3-partition store executed in a 2-partition cluster");
    }

    /** Partition 0 of 2 executing a command sent to both; partition 1 sent {@code values} (null: sent to partition 0 only). */
    private static dev.parallax.scheduler.ssmr.ExecutionContext context(byte[] values) {
        GroupSet involved = values == null ? GroupSet.of(0) : GroupSet.of(0, 1);
        return new dev.parallax.scheduler.ssmr.ExecutionContext() {
            @Override
            public int partition() {
                return 0;
            }

            @Override
            public int partitions() {
                return 2;
            }

            @Override
            public GroupSet involved() {
                return involved;
            }

            @Override
            public ByteBuffer valuesOf(int partition) {
                return ByteBuffer.wrap(values).asReadOnlyBuffer();
            }

            @Override
            public void require(GroupSet needed) {
                assertThat(needed.bits() & ~involved.bits()).isZero();
            }
        };
    }
}
