package dev.parallax.examples.kv;

import dev.parallax.core.GroupSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5 §5.2: the KV router puts each key in one of k groups. */
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
}
