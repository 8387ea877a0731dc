package dev.parallax.core.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LinearizedSetTest {

    @Test
    void windowAndHashIdentifyTheSetAcrossRandomChanges() {
        SplittableRandom random = new SplittableRandom(3);
        int capacity = 300;
        LinearizedSet set = new LinearizedSet(capacity, 0);
        BitSet reference = new BitSet(capacity);
        Map<BitSet, Long> hashes = new HashMap<>();
        for (int round = 0; round < 20_000; round++) {
            // Mostly a growing prefix with a ragged edge, as in a search, plus occasional deep removals.
            int frontier = reference.nextClearBit(0);
            int index = random.nextInt(8) == 0
                    ? random.nextInt(capacity)
                    : Math.min(capacity - 1, frontier + random.nextInt(70));
            if (reference.get(index)) {
                set.remove(index);
                reference.clear(index);
            } else {
                set.add(index);
                reference.set(index);
            }
            BitSet snapshot = (BitSet) reference.clone();
            Long previous = hashes.putIfAbsent(snapshot, set.hash());
            if (previous != null) {
                assertThat(set.hash()).isEqualTo(previous);
            }
            assertThat(rebuild(set.lo(), set.window(), capacity)).isEqualTo(reference);
            assertThat(set.matches(set.lo(), set.window())).isTrue();
            for (int probe = 0; probe < capacity; probe += 37) {
                assertThat(set.contains(probe)).isEqualTo(reference.get(probe));
            }
        }
    }

    @Test
    void differentSetsDoNotMatch() {
        LinearizedSet a = new LinearizedSet(200, 0);
        LinearizedSet b = new LinearizedSet(200, 0);
        for (int i = 0; i < 64; i++) {
            a.add(i);
            b.add(i);
        }
        a.add(100);
        b.add(101);

        assertThat(a.matches(b.lo(), b.window())).isFalse();
        assertThat(a.hash()).isNotEqualTo(b.hash());
        b.remove(101);
        b.add(100);
        assertThat(a.matches(b.lo(), b.window())).isTrue();
        assertThat(a.hash()).isEqualTo(b.hash());
    }

    @Test
    void emptyAndFullSetsHaveEmptyWindows() {
        LinearizedSet set = new LinearizedSet(128, 0);
        assertThat(set.window()).isEmpty();
        for (int i = 0; i < 128; i++) {
            set.add(i);
        }
        assertThat(set.window()).isEmpty();
        assertThat(set.lo()).isEqualTo(2);
        assertThat(new LinearizedSet(128, 0).matches(set.lo(), set.window())).isFalse();
    }

    private static BitSet rebuild(int lo, long[] window, int capacity) {
        BitSet bits = new BitSet(capacity);
        bits.set(0, Math.min(capacity, lo * 64));
        BitSet tail = BitSet.valueOf(window);
        for (int i = tail.nextSetBit(0); i >= 0; i = tail.nextSetBit(i + 1)) {
            bits.set(lo * 64 + i);
        }
        return bits;
    }
}
