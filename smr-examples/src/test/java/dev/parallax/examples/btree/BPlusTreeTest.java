package dev.parallax.examples.btree;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The B+-tree against {@link TreeMap} under random operation sequences, checking its invariants. */
class BPlusTreeTest {

    record Op(int kind, long key, long key2, int limit) {
    }

    @Property(tries = 200)
    void behavesLikeATreeMap(@ForAll("orders") int order, @ForAll("ops") List<Op> ops) {
        BPlusTree tree = new BPlusTree(order);
        TreeMap<Long, byte[]> model = new TreeMap<>();
        for (Op op : ops) {
            apply(tree, model, op);
            tree.checkInvariants();
        }
        assertSameContents(tree, model);
    }

    @ParameterizedTest
    @ValueSource(ints = {4, 5, 6, 9, 32})
    void longSeededSequencesGrowAndShrinkTheTree(int order) {
        SplittableRandom r = new SplittableRandom(order);
        BPlusTree tree = new BPlusTree(order);
        TreeMap<Long, byte[]> model = new TreeMap<>();
        int maxHeight = 0;
        for (int step = 0; step < 30_000; step++) {
            boolean growing = (step / 5_000) % 2 == 0;
            int kind = r.nextInt(10);
            if (!growing && kind < 6) {
                kind = 4;
            }
            apply(tree, model, new Op(kind, r.nextLong(2_000), r.nextLong(2_000), r.nextInt(50)));
            if (step % 97 == 0) {
                tree.checkInvariants();
            }
            maxHeight = Math.max(maxHeight, tree.height());
        }
        tree.checkInvariants();
        assertSameContents(tree, model);
        assertThat(maxHeight).as("the tree split up to several levels").isGreaterThanOrEqualTo(3);
        for (Long k : new ArrayList<>(model.keySet())) {
            assertThat(tree.delete(k)).isTrue();
        }
        tree.checkInvariants();
        assertThat(tree.size()).isZero();
        assertThat(tree.height()).as("merges shrink the tree back to a leaf").isEqualTo(1);
    }

    @Test
    void valuesAreCopied() {
        BPlusTree tree = new BPlusTree(4);
        byte[] v = {1, 2};
        tree.insert(7, v);
        v[0] = 9;
        byte[] got = tree.get(7);
        assertThat(got).containsExactly(1, 2);
        got[1] = 9;
        assertThat(tree.get(7)).containsExactly(1, 2);
    }

    @Test
    void rejectsTooSmallOrdersAndNegativeLimits() {
        assertThatThrownBy(() -> new BPlusTree(3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BPlusTree(4).range(0, 1, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    private static void apply(BPlusTree tree, TreeMap<Long, byte[]> model, Op op) {
        byte[] value = Long.toString(op.key() * 31 + op.limit()).getBytes();
        switch (op.kind()) {
            case 0, 1, 2 -> assertThat(tree.insert(op.key(), value)).isEqualTo(model.putIfAbsent(op.key(), value) == null);
            case 3 -> {
                boolean present = model.containsKey(op.key());
                if (present) {
                    model.put(op.key(), value);
                }
                assertThat(tree.update(op.key(), value)).isEqualTo(present);
            }
            case 4, 5 -> assertThat(tree.delete(op.key())).isEqualTo(model.remove(op.key()) != null);
            case 6 -> {
                byte[] expected = model.get(op.key());
                assertThat(tree.get(op.key())).isEqualTo(expected);
                assertThat(tree.containsKey(op.key())).isEqualTo(expected != null);
            }
            case 7 -> {
                boolean added = model.putIfAbsent(op.key(), value) == null;
                if (!added) {
                    model.put(op.key(), value);
                }
                assertThat(tree.put(op.key(), value)).isEqualTo(added);
            }
            default -> {
                long from = Math.min(op.key(), op.key2());
                long to = Math.max(op.key(), op.key2());
                List<Map.Entry<Long, byte[]>> expected = model.subMap(from, to).entrySet().stream()
                        .limit(op.limit()).toList();
                List<Map.Entry<Long, byte[]>> actual = tree.range(from, to, op.limit());
                assertThat(actual).hasSameSizeAs(expected);
                for (int i = 0; i < expected.size(); i++) {
                    assertThat(actual.get(i).getKey()).isEqualTo(expected.get(i).getKey());
                    assertThat(actual.get(i).getValue()).isEqualTo(expected.get(i).getValue());
                }
            }
        }
        assertThat(tree.size()).isEqualTo(model.size());
    }

    private static void assertSameContents(BPlusTree tree, TreeMap<Long, byte[]> model) {
        List<Long> keys = new ArrayList<>();
        List<byte[]> values = new ArrayList<>();
        tree.forEach((v, k) -> {
            keys.add(k);
            values.add(v);
        });
        assertThat(keys).containsExactlyElementsOf(model.keySet());
        assertThat(values).containsExactlyElementsOf(model.values());
    }

    @Provide
    Arbitrary<Integer> orders() {
        return Arbitraries.of(4, 5, 6, 7, 16);
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Op> op = Combinators.combine(Arbitraries.integers().between(0, 9),
                        Arbitraries.longs().between(-50, 150), Arbitraries.longs().between(-50, 150),
                        Arbitraries.integers().between(0, 40))
                .as(Op::new);
        return op.list().ofMinSize(0).ofMaxSize(600);
    }
}
