package dev.parallax.examples.kv;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.CommandRouter;
import dev.parallax.core.testkit.CommandGroupsValidator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.BiPredicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5 §5.2: the KV router puts each key in one of k
 * groups; ch. 6 §6.3.2: as the KV store's C-G function it gives every two dependent commands a
 * common group.
 */
class KvRouterTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A key of group {@code group}, found by trying key names. */
    private static String keyIn(KvRouter router, int group, String prefix) {
        for (int i = 0; ; i++) {
            String k = prefix + i;
            if (router.groupOf(b(k)) == group) {
                return k;
            }
        }
    }

    @Test
    @DisplayName("single-key commands go to their key's group, the same group for every op on the key, and the keys spread over all k groups")
    void singleKeyCommandsGoToTheirKeysGroup() {
        KvRouter router = new KvRouter(3);
        int[] perGroup = new int[3];
        for (int i = 0; i < 3000; i++) {
            byte[] key = b("0:" + i);
            int g = router.groupOf(key);
            assertThat(g).isBetween(0, 2);
            perGroup[g]++;
            GroupSet expected = GroupSet.of(g);
            assertThat(router.route(KvCommand.of(KvOp.GET, key).encode())).isEqualTo(expected);
            assertThat(router.route(KvCommand.of(KvOp.SET, key, b("value " + i)).encode())).isEqualTo(expected);
            assertThat(router.route(KvCommand.of(KvOp.INCR, key).encode())).isEqualTo(expected);
            assertThat(router.route(KvCommand.of(KvOp.STRLEN, key).encode())).isEqualTo(expected);
            assertThat(router.route(KvCommand.of(KvOp.SET_IF_ABSENT, key, key).encode())).isEqualTo(expected);
        }
        // 3000 keys over 3 groups: each gets a fair share (expected 1000, the bound is loose).
        for (int n : perGroup) {
            assertThat(n).isBetween(800, 1200);
        }
    }

    @Test
    void theGroupOfAKeyIsFixedAcrossRoutersAndJvms() {
        // Arrays.hashCode is specified, so these values hold in every JVM: clients agree on groups.
        KvRouter a = new KvRouter(2);
        KvRouter b = new KvRouter(2);
        List<Integer> groups = new ArrayList<>();
        for (String k : List.of("a", "b", "c", "user:1", "user:2", "")) {
            assertThat(a.groupOf(b(k))).isEqualTo(b.groupOf(b(k)));
            groups.add(a.groupOf(b(k)));
        }
        assertThat(groups).contains(0, 1);
        assertThat(new KvRouter(1).route(KvCommand.of(KvOp.GET, b("anything")).encode())).isEqualTo(GroupSet.DEFAULT);
    }

    @Test
    @DisplayName("multi-key commands go to the union of their keys' groups; MSET's values do not count")
    void multiKeyCommandsGoToEveryGroupOfTheirKeys() {
        KvRouter router = new KvRouter(3);
        String k0 = keyIn(router, 0, "x");
        String k1 = keyIn(router, 1, "y");
        String k2 = keyIn(router, 2, "z");
        String k1b = keyIn(router, 1, "w");
        assertThat(router.route(KvCommand.of(KvOp.MGET, b(k1), b(k1b)).encode())).isEqualTo(GroupSet.of(1));
        assertThat(router.route(KvCommand.of(KvOp.MGET, b(k0), b(k2)).encode())).isEqualTo(GroupSet.of(0, 2));
        assertThat(router.route(KvCommand.of(KvOp.DEL, b(k2), b(k1), b(k0)).encode())).isEqualTo(GroupSet.of(0, 1, 2));
        assertThat(router.route(KvCommand.of(KvOp.EXISTS, b(k1), b(k2)).encode())).isEqualTo(GroupSet.of(1, 2));
        // MSET k1 <k0 as a value>: one key, group 1, whatever the value hashes to.
        assertThat(router.route(KvCommand.of(KvOp.MSET, b(k1), b(k0)).encode())).isEqualTo(GroupSet.of(1));
        assertThat(router.route(KvCommand.of(KvOp.MSET, b(k1), b(k0), b(k2), b(k0)).encode())).isEqualTo(GroupSet.of(1, 2));
        // SET's value is no key either.
        assertThat(router.route(KvCommand.of(KvOp.SET, b(k2), b(k0)).encode())).isEqualTo(GroupSet.of(2));
    }

    @Test
    @DisplayName("bytes that are not a well-formed command go to group 0 (the store rejects them), and route leaves the buffer as it was")
    void malformedCommandsGoToGroupZero() {
        KvRouter router = new KvRouter(4);
        assertThat(router.route(ByteBuffer.allocate(0))).isEqualTo(GroupSet.DEFAULT);
        assertThat(router.route(ByteBuffer.wrap(new byte[] {KvOp.GET.code(), 0, 0}))).isEqualTo(GroupSet.DEFAULT);
        assertThat(router.route(ByteBuffer.wrap(new byte[] {99, 0, 0, 0, 1, 0, 0, 0, 0}))).as("unknown op").isEqualTo(GroupSet.DEFAULT);
        assertThat(router.route(ByteBuffer.wrap(new byte[] {KvOp.GET.code(), 0, 0, 0, 0}))).as("no argument").isEqualTo(GroupSet.DEFAULT);
        assertThat(router.route(ByteBuffer.wrap(new byte[] {KvOp.GET.code(), 0, 0, 0, 1, 0, 0, 0, 9, 1})))
                .as("a length beyond the end").isEqualTo(GroupSet.DEFAULT);
        assertThat(router.route(ByteBuffer.wrap(new byte[] {KvOp.DEL.code(), 127, 0, 0, 0, 0, 0, 0, 0})))
                .as("an argument count beyond the bytes").isEqualTo(GroupSet.DEFAULT);

        String k3 = keyIn(router, 3, "k");
        ByteBuffer encoded = KvCommand.of(KvOp.GET, b(k3)).encode();
        ByteBuffer framed = ByteBuffer.allocate(encoded.remaining() + 7);
        framed.position(5);
        framed.put(encoded.duplicate()).limit(5 + encoded.remaining()).position(5);
        assertThat(router.route(framed)).as("a command in the middle of a buffer").isEqualTo(GroupSet.of(3));
        assertThat(framed.position()).isEqualTo(5);
        assertThat(framed.limit()).isEqualTo(5 + encoded.remaining());
    }

    @Test
    void aRouterNeedsOneToSixtyFourGroups() {
        assertThatThrownBy(() -> new KvRouter(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("groups");
        assertThatThrownBy(() -> new KvRouter(65)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1..64");
        KvRouter all = new KvRouter(64);
        assertThat(all.groups()).isEqualTo(64);
        String k63 = keyIn(all, 63, "k");
        assertThat(all.route(KvCommand.of(KvOp.MGET, b(k63), b(keyIn(all, 0, "j"))).encode())).isEqualTo(GroupSet.of(0, 63));
    }

    @Test
    @DisplayName("DBSIZE and FLUSHALL read or write the whole store and go to every group; with arguments they are malformed")
    void globalCommandsGoToEveryGroup() {
        for (int k : new int[] {1, 3, 64}) {
            KvRouter router = new KvRouter(k);
            GroupSet all = GroupSet.ofBits(k == 64 ? -1L : (1L << k) - 1);
            assertThat(router.route(KvCommand.of(KvOp.DBSIZE).encode())).as("k=%d", k).isEqualTo(all);
            assertThat(router.route(KvCommand.of(KvOp.FLUSHALL).encode())).as("k=%d", k).isEqualTo(all);
        }
        KvRouter router = new KvRouter(3);
        assertThat(router.route(ByteBuffer.wrap(new byte[] {KvOp.DBSIZE.code(), 0, 0, 0, 1, 0, 0, 0, 0})))
                .as("DBSIZE with an argument").isEqualTo(GroupSet.DEFAULT);
        assertThat(router.route(ByteBuffer.wrap(new byte[] {KvOp.FLUSHALL.code(), 0, 0, 0, 1, 0, 0, 0, 0})))
                .as("FLUSHALL with an argument").isEqualTo(GroupSet.DEFAULT);
        assertThat(router.route(ByteBuffer.wrap(new byte[] {KvOp.FLUSHALL.code(), 0, 0}))).as("truncated")
                .isEqualTo(GroupSet.DEFAULT);
    }

    /**
     * The KV store's C-Dep: two commands depend on each other if they share a key and at least one
     * writes; DBSIZE depends on every write, FLUSHALL on every command. Malformed bytes (the store
     * rejects them unchanged) depend on nothing.
     */
    static final BiPredicate<ByteBuffer, ByteBuffer> DEPENDENT = (a, b) -> {
        KvCommand x = decodeOrNull(a);
        KvCommand y = decodeOrNull(b);
        if (x == null || y == null) {
            return false;
        }
        boolean eitherWrites = writes(x.op()) || writes(y.op());
        if (x.op().isGlobal() || y.op().isGlobal()) {
            return x.op() == KvOp.FLUSHALL || y.op() == KvOp.FLUSHALL || eitherWrites;
        }
        if (!eitherWrites) {
            return false;
        }
        Set<ByteKey> keys = keys(x);
        for (ByteKey k : keys(y)) {
            if (keys.contains(k)) {
                return true;
            }
        }
        return false;
    };

    private static KvCommand decodeOrNull(ByteBuffer b) {
        try {
            return KvCommand.decode(b);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static boolean writes(KvOp op) {
        return switch (op) {
            case GET, EXISTS, MGET, DBSIZE, STRLEN -> false;
            default -> true;
        };
    }

    private static Set<ByteKey> keys(KvCommand c) {
        Set<ByteKey> keys = new HashSet<>();
        switch (c.op()) {
            case SET, SET_IF_ABSENT, SET_IF_PRESENT, GET, INCR, STRLEN -> keys.add(new ByteKey(c.arg(0)));
            case MSET -> {
                for (int i = 0; i < c.argCount(); i += 2) {
                    keys.add(new ByteKey(c.arg(i)));
                }
            }
            case DEL, EXISTS, MGET -> {
                for (int i = 0; i < c.argCount(); i++) {
                    keys.add(new ByteKey(c.arg(i)));
                }
            }
            default -> {
            }
        }
        return keys;
    }

    private static String describe(ByteBuffer b) {
        KvCommand c = decodeOrNull(b);
        if (c == null) {
            return "malformed";
        }
        StringBuilder sb = new StringBuilder(c.op().toString());
        for (int i = 0; i < c.argCount(); i++) {
            sb.append(' ').append(new String(c.arg(i), StandardCharsets.UTF_8));
        }
        return sb.toString();
    }

    /** A seeded mix over 12 keys of every op, DBSIZE and FLUSHALL included, and some malformed bytes. */
    private static List<ByteBuffer> mix(long seed, int n) {
        Random r = new Random(seed);
        List<ByteBuffer> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] k = b("key-" + r.nextInt(12));
            byte[] k2 = b("key-" + r.nextInt(12));
            byte[] k3 = b("key-" + r.nextInt(12));
            byte[] v = b("v" + i);
            out.add(switch (r.nextInt(16)) {
                case 0 -> KvCommand.of(KvOp.SET, k, v).encode();
                case 1 -> KvCommand.of(KvOp.SET_IF_ABSENT, k, v).encode();
                case 2 -> KvCommand.of(KvOp.SET_IF_PRESENT, k, v).encode();
                case 3 -> KvCommand.of(KvOp.DEL, k, k2).encode();
                case 4 -> KvCommand.of(KvOp.INCR, k).encode();
                case 5 -> KvCommand.of(KvOp.MSET, k, v, k2, v, k3, v).encode();
                case 6 -> KvCommand.of(KvOp.EXISTS, k, k2).encode();
                case 7 -> KvCommand.of(KvOp.MGET, k, k2, k3).encode();
                case 8 -> KvCommand.of(KvOp.DBSIZE).encode();
                case 9 -> r.nextInt(4) == 0 ? KvCommand.of(KvOp.FLUSHALL).encode() : KvCommand.of(KvOp.GET, k2).encode();
                case 10 -> ByteBuffer.wrap(new byte[] {99, 0, 0, 0, 1, 0, 0, 0, 0});
                case 11 -> KvCommand.of(KvOp.STRLEN, k).encode();
                default -> KvCommand.of(KvOp.GET, k).encode();
            });
        }
        return out;
    }

    @Test
    @DisplayName("C-G: over a mix of every op, every two dependent commands share a group (k = 1, 3, 4)")
    void theRouterGivesEveryTwoDependentCommandsACommonGroup() {
        for (int k : new int[] {1, 3, 4}) {
            CommandGroupsValidator.Report report = CommandGroupsValidator.check(new KvRouter(k), DEPENDENT,
                    mix(k, 400), KvRouterTest::describe);
            assertThat(report.passed()).as("k=%d: %s", k, report.describe()).isTrue();
            assertThat(report.dependentPairs()).as("k=%d", k).isGreaterThan(1000);
        }
        // Single-key commands on keys of different groups are independent and share no group.
        KvRouter router = new KvRouter(3);
        List<ByteBuffer> parallel = List.of(KvCommand.of(KvOp.SET, b(keyIn(router, 0, "p")), b("1")).encode(),
                KvCommand.of(KvOp.INCR, b(keyIn(router, 1, "q"))).encode(),
                KvCommand.of(KvOp.GET, b(keyIn(router, 2, "r"))).encode());
        CommandGroupsValidator.Report report = CommandGroupsValidator.check(router, DEPENDENT, parallel);
        assertThat(report.passed()).isTrue();
        assertThat(report.independentPairsSharingGroup()).isZero();
    }

    @Test
    @DisplayName("C-G: broken routers are caught (MSET to its first key's group only, DBSIZE to group 0 only)")
    void brokenRoutersAreCaught() {
        KvRouter router = new KvRouter(3);
        List<ByteBuffer> commands = mix(5, 400);
        CommandRouter msetToFirstKey = c -> {
            KvCommand decoded = decodeOrNull(c);
            return decoded != null && decoded.op() == KvOp.MSET ? GroupSet.of(router.groupOf(decoded.arg(0)))
                    : router.route(c);
        };
        CommandGroupsValidator.Report mset = CommandGroupsValidator.check(msetToFirstKey, DEPENDENT, commands,
                KvRouterTest::describe);
        assertThat(mset.passed()).isFalse();
        assertThat(mset.violations()).allSatisfy(v -> assertThat(v.description()).contains("MSET"));

        CommandRouter dbsizeToGroupZero = c -> {
            KvCommand decoded = decodeOrNull(c);
            return decoded != null && decoded.op() == KvOp.DBSIZE ? GroupSet.DEFAULT : router.route(c);
        };
        CommandGroupsValidator.Report dbsize = CommandGroupsValidator.check(dbsizeToGroupZero, DEPENDENT, commands,
                KvRouterTest::describe);
        assertThat(dbsize.passed()).isFalse();
        assertThat(dbsize.violations()).allSatisfy(v -> assertThat(v.description()).contains("DBSIZE")
                .contains(" -> {0} "));
    }
}
