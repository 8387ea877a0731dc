package dev.parallax.examples.btree;

import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.CommandRouter;
import dev.parallax.core.testkit.CommandGroupsValidator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BiPredicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The B+-tree's C-G function, seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6 §6.3.2. */
class BTreeRouterTest {
    private static final CommandId ID = new CommandId(1, 1);
    private static final byte[] V = {7};

    private static ByteBuffer get(long key) {
        return BTreeCommands.get(ID, key).payload();
    }

    private static ByteBuffer insert(long key) {
        return BTreeCommands.insert(ID, key, V).payload();
    }

    private static ByteBuffer update(long key) {
        return BTreeCommands.update(ID, key, V).payload();
    }

    private static ByteBuffer delete(long key) {
        return BTreeCommands.delete(ID, key).payload();
    }

    private static ByteBuffer range(long from, long to) {
        return BTreeCommands.range(ID, from, to, 10).payload();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 7, 64})
    void theKeySpaceIsCutIntoKContiguousRangesInKeyOrder(int k) {
        BTreeRouter router = new BTreeRouter(k);
        assertThat(router.groupOf(Long.MIN_VALUE)).isZero();
        assertThat(router.groupOf(Long.MAX_VALUE)).isEqualTo(k - 1);
        assertThat(router.firstKeyOf(0)).isEqualTo(Long.MIN_VALUE);
        long width = Long.divideUnsigned(-1L, k);
        for (int g = 1; g < k; g++) {
            long first = router.firstKeyOf(g);
            assertThat(router.groupOf(first)).as("first key of %d", g).isEqualTo(g);
            assertThat(router.groupOf(first - 1)).as("key before group %d", g).isEqualTo(g - 1);
            long size = first - router.firstKeyOf(g - 1);
            assertThat(Long.compareUnsigned(size, width) >= 0 && Long.compareUnsigned(size, width + 1) <= 0)
                    .as("group %d's range has 2^64/k keys, within one", g - 1).isTrue();
        }
        SplittableRandom r = new SplittableRandom(k);
        for (int i = 0; i < 2000; i++) {
            long a = r.nextLong();
            long b = r.nextLong();
            long lo = Math.min(a, b);
            long hi = Math.max(a, b);
            assertThat(router.groupOf(lo)).isBetween(0, k - 1).isLessThanOrEqualTo(router.groupOf(hi));
        }
        assertThatThrownBy(() -> router.firstKeyOf(k)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aPowerOfTwoOfGroupsSplitsByTheTopBits() {
        BTreeRouter two = new BTreeRouter(2);
        assertThat(two.groupOf(-1)).isZero();
        assertThat(two.groupOf(0)).isEqualTo(1);
        assertThat(two.firstKeyOf(1)).isZero();
        BTreeRouter four = new BTreeRouter(4);
        SplittableRandom r = new SplittableRandom(4);
        for (int i = 0; i < 1000; i++) {
            long key = r.nextLong();
            assertThat(four.groupOf(key)).isEqualTo((int) ((key ^ Long.MIN_VALUE) >>> 62));
        }
    }

    @Test
    void eachOperationGoesToTheGroupsItMayTouch() {
        BTreeRouter router = new BTreeRouter(4);
        long g1 = router.firstKeyOf(1) + 5;
        long g3 = router.firstKeyOf(3);
        assertThat(router.route(get(g1))).isEqualTo(GroupSet.of(1));
        assertThat(router.route(update(g3))).as("UPDATE replaces a value in place").isEqualTo(GroupSet.of(3));
        assertThat(router.route(insert(g1))).as("INSERT may split nodes shared by all ranges")
                .isEqualTo(GroupSet.of(0, 1, 2, 3));
        assertThat(router.route(delete(g3))).as("DELETE may merge nodes").isEqualTo(GroupSet.of(0, 1, 2, 3));
        assertThat(router.route(range(g1, g1 + 100))).isEqualTo(GroupSet.of(1));
        assertThat(router.route(range(g1, g3))).as("to is exclusive").isEqualTo(GroupSet.of(1, 2));
        assertThat(router.route(range(g1, g3 + 1))).isEqualTo(GroupSet.of(1, 2, 3));
        assertThat(router.route(range(Long.MIN_VALUE, Long.MAX_VALUE))).isEqualTo(GroupSet.of(0, 1, 2, 3));
        assertThat(router.route(range(g3, g1))).as("an empty range").isEqualTo(GroupSet.of(3));
        BTreeRouter all = new BTreeRouter(64);
        assertThat(all.route(insert(0)).size()).isEqualTo(64);
        assertThat(all.route(range(all.firstKeyOf(62), Long.MAX_VALUE))).isEqualTo(GroupSet.of(62, 63));
        assertThat(new BTreeRouter(1).route(insert(42))).isEqualTo(GroupSet.DEFAULT);
    }

    @Test
    void malformedCommandsGoToGroupZeroAndRouteLeavesTheBufferAsItWas() {
        BTreeRouter router = new BTreeRouter(4);
        long g2 = router.firstKeyOf(2);
        assertThat(router.route(ByteBuffer.allocate(0))).isEqualTo(GroupSet.DEFAULT);
        assertThat(router.route(ByteBuffer.wrap(new byte[] {BTreeCommands.GET, 1, 2}))).isEqualTo(GroupSet.DEFAULT);
        assertThat(router.route(ByteBuffer.allocate(9).put((byte) 9).putLong(g2).flip())).as("unknown op")
                .isEqualTo(GroupSet.DEFAULT);
        assertThat(router.route(ByteBuffer.allocate(17).put(BTreeCommands.RANGE).putLong(g2).putLong(g2 + 9).flip()))
                .as("RANGE without a limit").isEqualTo(GroupSet.DEFAULT);
        assertThat(router.route(ByteBuffer.allocate(21).put(BTreeCommands.RANGE).putLong(g2).putLong(g2 + 9)
                .putInt(-1).flip())).as("RANGE with a negative limit").isEqualTo(GroupSet.DEFAULT);
        assertThat(router.route(ByteBuffer.allocate(12).put(BTreeCommands.GET).putLong(g2).putShort((short) 0).flip()))
                .as("the store ignores bytes after a GET's key, and so does the router").isEqualTo(GroupSet.of(2));

        ByteBuffer framed = ByteBuffer.allocate(40);
        framed.position(7);
        framed.put(update(g2)).put((byte) 99).limit(7 + 10).position(7);
        assertThat(router.route(framed)).isEqualTo(GroupSet.of(2));
        assertThat(framed.position()).isEqualTo(7);
        assertThat(framed.limit()).isEqualTo(17);
        assertThatThrownBy(() -> new BTreeRouter(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BTreeRouter(65)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1..64");
    }

    @Test
    void theStoreRejectsWhatTheRouterCallsMalformed() {
        BTreeStore store = new BTreeStore(4);
        for (ByteBuffer bad : List.of(ByteBuffer.wrap(new byte[] {BTreeCommands.GET, 1, 2}),
                ByteBuffer.allocate(9).put((byte) 9).putLong(3).flip(),
                ByteBuffer.allocate(17).put(BTreeCommands.RANGE).putLong(3).putLong(9).flip(),
                ByteBuffer.allocate(21).put(BTreeCommands.RANGE).putLong(3).putLong(9).putInt(-1).flip())) {
            assertThat(new BTreeRouter(4).route(bad)).isEqualTo(GroupSet.DEFAULT);
            assertThatThrownBy(() -> store.execute(bad)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(store.tree().size()).isZero();
    }

    @Test
    void updateChangesNoStructureSoItNeedsOnlyItsKeysGroup() {
        BTreeStore store = new BTreeStore(4);
        for (long k = 0; k < 200; k++) {
            store.execute(insert(k * 3));
        }
        int height = store.tree().height();
        List<Long> keys = new ArrayList<>();
        store.tree().forEach((v, k) -> keys.add(k));
        for (long k = 0; k < 200; k++) {
            store.execute(BTreeCommands.update(ID, k * 3, new byte[64]).payload());
            store.execute(update(k * 3 + 1)); // absent: no change at all
        }
        List<Long> after = new ArrayList<>();
        store.tree().forEach((v, k) -> after.add(k));
        assertThat(after).isEqualTo(keys);
        assertThat(store.tree().height()).isEqualTo(height);
        store.tree().checkInvariants();
    }

    /**
     * The B+-tree's C-Dep: INSERT and DELETE (structure changes) depend on every well-formed
     * command; UPDATE of a key depends on a GET or UPDATE of that key and on a RANGE that spans it;
     * reads are independent of reads; malformed commands (rejected, no change) of nothing.
     */
    static final BiPredicate<ByteBuffer, ByteBuffer> DEPENDENT = (a, b) -> {
        Op x = Op.parse(a);
        Op y = Op.parse(b);
        if (x == null || y == null) {
            return false;
        }
        if (x.structural() || y.structural()) {
            return true;
        }
        if (x.code != BTreeCommands.UPDATE && y.code != BTreeCommands.UPDATE) {
            return false;
        }
        Op write = x.code == BTreeCommands.UPDATE ? x : y;
        Op other = write == x ? y : x;
        return other.code == BTreeCommands.RANGE ? other.key <= write.key && write.key < other.to
                : other.key == write.key;
    };

    private record Op(byte code, long key, long to) {
        boolean structural() {
            return code == BTreeCommands.INSERT || code == BTreeCommands.DELETE;
        }

        /** The command, or null if the store rejects it. */
        static Op parse(ByteBuffer c) {
            if (c.remaining() < 9) {
                return null;
            }
            byte code = c.get(c.position());
            long key = c.getLong(c.position() + 1);
            if (code == BTreeCommands.RANGE) {
                if (c.remaining() != 21 || c.getInt(c.position() + 17) < 0) {
                    return null;
                }
                return new Op(code, key, c.getLong(c.position() + 9));
            }
            return code >= BTreeCommands.GET && code <= BTreeCommands.DELETE ? new Op(code, key, key) : null;
        }
    }

    /** A seeded mix whose keys crowd the range boundaries and the ends of the key space. */
    private static List<ByteBuffer> mix(BTreeRouter router, long seed, int n) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Long> anchors = new ArrayList<>(List.of(Long.MIN_VALUE, Long.MAX_VALUE - 8));
        for (int g = 1; g < router.groups(); g++) {
            anchors.add(router.firstKeyOf(g) - 4);
        }
        List<ByteBuffer> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long key = anchors.get(r.nextInt(anchors.size())) + r.nextInt(8);
            out.add(switch (r.nextInt(12)) {
                case 0 -> insert(key);
                case 1 -> delete(key);
                case 2, 3, 4 -> update(key);
                case 5, 6 -> {
                    long to = r.nextInt(4) == 0 ? anchors.get(r.nextInt(anchors.size())) : key + r.nextInt(10);
                    yield range(key, to);
                }
                case 7 -> ByteBuffer.wrap(new byte[] {9, 0, 0, 0, 0, 0, 0, 0, 0});
                default -> get(key);
            });
        }
        return out;
    }

    private static String describe(ByteBuffer c) {
        Op op = Op.parse(c);
        if (op == null) {
            return "malformed";
        }
        String[] names = {"?", "GET", "INSERT", "UPDATE", "DELETE", "RANGE"};
        return names[op.code] + " " + op.key + (op.code == BTreeCommands.RANGE ? ".." + op.to : "");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3, 4})
    void theRouterGivesEveryTwoDependentCommandsACommonGroup(int k) {
        BTreeRouter router = new BTreeRouter(k);
        CommandGroupsValidator.Report report = CommandGroupsValidator.check(router, DEPENDENT, mix(router, k, 400),
                BTreeRouterTest::describe);
        assertThat(report.passed()).as(report.describe()).isTrue();
        assertThat(report.dependentPairs()).isGreaterThan(1000);
    }

    @Test
    void readsAndUpdatesOfDifferentRangesShareNoGroup() {
        BTreeRouter router = new BTreeRouter(4);
        List<ByteBuffer> commands = List.of(get(router.firstKeyOf(0)), update(router.firstKeyOf(1)),
                update(router.firstKeyOf(2)), range(router.firstKeyOf(3), Long.MAX_VALUE));
        CommandGroupsValidator.Report report = CommandGroupsValidator.check(router, DEPENDENT, commands);
        assertThat(report.passed()).isTrue();
        assertThat(report.dependentPairs()).isZero();
        assertThat(report.independentPairsSharingGroup()).as("all four run in parallel").isZero();
    }

    @Test
    void brokenRoutersAreCaught() {
        BTreeRouter router = new BTreeRouter(4);
        List<ByteBuffer> commands = mix(router, 11, 300);
        CommandRouter insertToItsKeysGroup = c -> c.remaining() >= 9 && c.get(c.position()) == BTreeCommands.INSERT
                ? GroupSet.of(router.groupOf(c.getLong(c.position() + 1))) : router.route(c);
        CommandGroupsValidator.Report broken = CommandGroupsValidator.check(insertToItsKeysGroup, DEPENDENT, commands,
                BTreeRouterTest::describe);
        assertThat(broken.passed()).isFalse();
        assertThat(broken.violations()).allSatisfy(v -> assertThat(v.description()).contains("INSERT"));

        CommandRouter rangeToItsFirstGroup = c -> c.remaining() == 21 && c.get(c.position()) == BTreeCommands.RANGE
                ? GroupSet.of(router.groupOf(c.getLong(c.position() + 1))) : router.route(c);
        CommandGroupsValidator.Report ranges = CommandGroupsValidator.check(rangeToItsFirstGroup, DEPENDENT, commands,
                BTreeRouterTest::describe);
        assertThat(ranges.passed()).isFalse();
        assertThat(ranges.violations()).allSatisfy(v -> assertThat(v.description()).contains("RANGE").contains("UPDATE"));
    }
}
