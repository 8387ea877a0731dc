package dev.parallax.core.net;

import dev.parallax.core.runtime.DatagramFaults;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class DatagramFaultInjectorTest {
    private static final int N = 20_000;

    /** Offers 0..n-1 at time 0, then flushes late enough; what came out, in order. */
    private static List<Integer> run(DatagramFaults faults, long salt, int n) {
        DatagramFaultInjector<Integer> injector = new DatagramFaultInjector<>(faults, salt);
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            injector.offer(i, 0, out::add);
        }
        injector.flush(DatagramFaultInjector.FLUSH_AFTER_NANOS, out::add);
        assertThat(injector.held()).isZero();
        return out;
    }

    @Test
    @DisplayName("seed 003 §3.3.2 (unreliable ip-multicast): drops at the configured rate, within binomial bounds, in order")
    void dropRateWithinBinomialBounds() {
        double p = 0.1;
        DatagramFaultInjector<Integer> injector = new DatagramFaultInjector<>(new DatagramFaults(p, 0, 0, 42), 1);
        List<Integer> out = new ArrayList<>();
        int dropped = 0;
        for (int i = 0; i < N; i++) {
            if (injector.offer(i, 0, out::add) == 0) {
                dropped++;
            }
        }
        double mean = N * p;
        double sd = Math.sqrt(N * p * (1 - p));
        assertThat((double) dropped).isBetween(mean - 6 * sd, mean + 6 * sd);
        assertThat(injector.dropped()).isEqualTo(dropped);
        assertThat(out).hasSize(N - dropped).isSorted().doesNotHaveDuplicates();
        assertThat(injector.duplicated()).isZero();
    }

    @Test
    @DisplayName("duplicates arrive twice, back to back without reordering, at the configured rate")
    void duplicates() {
        double p = 0.2;
        List<Integer> out = run(new DatagramFaults(0, p, 0, 9), 0, N);
        Map<Integer, Integer> copies = new HashMap<>();
        out.forEach(i -> copies.merge(i, 1, Integer::sum));
        assertThat(copies).hasSize(N);
        assertThat(copies.values()).allMatch(c -> c == 1 || c == 2);
        long twice = copies.values().stream().filter(c -> c == 2).count();
        double mean = N * p;
        double sd = Math.sqrt(N * p * (1 - p));
        assertThat((double) twice).isBetween(mean - 6 * sd, mean + 6 * sd);
        assertThat(out).hasSize(N + (int) twice).isSorted();
    }

    @Test
    @DisplayName("reordering stays within the window: nothing moves more than window - 1 places, nothing is lost")
    void reorderWithinTheWindow() {
        int window = 4;
        List<Integer> out = run(new DatagramFaults(0, 0, window, 5), 3, 1000);
        assertThat(out).containsExactlyInAnyOrderElementsOf(java.util.stream.IntStream.range(0, 1000).boxed().toList());
        int moved = 0;
        for (int pos = 0; pos < out.size(); pos++) {
            int displacement = Math.abs(out.get(pos) - pos);
            assertThat(displacement).as("item %d at %d", out.get(pos), pos).isLessThan(window);
            moved += displacement > 0 ? 1 : 0;
        }
        assertThat(moved).as("the window shuffles").isGreaterThan(100);
    }

    @Test
    @DisplayName("held datagrams leave once the oldest has waited 5 ms, not before (time is given)")
    void flushAfterFiveMilliseconds() {
        DatagramFaultInjector<Integer> injector = new DatagramFaultInjector<>(new DatagramFaults(0, 0, 8, 1), 0);
        List<Integer> out = new ArrayList<>();
        long t0 = 1_000_000_000L;
        injector.offer(1, t0, out::add);
        injector.offer(2, t0 + 3_000_000, out::add);
        assertThat(out).isEmpty();
        assertThat(injector.held()).isEqualTo(2);
        assertThat(injector.flush(t0 + DatagramFaultInjector.FLUSH_AFTER_NANOS - 1, out::add)).isZero();
        assertThat(out).isEmpty();
        assertThat(injector.flush(t0 + DatagramFaultInjector.FLUSH_AFTER_NANOS, out::add)).isEqualTo(2);
        assertThat(out).containsExactlyInAnyOrder(1, 2);
        assertThat(injector.held()).isZero();
        // The clock of the next hold starts at its first item.
        injector.offer(3, t0 + 10_000_000, out::add);
        assertThat(injector.flush(t0 + 14_000_000, out::add)).isZero();
        assertThat(injector.flush(t0 + 15_000_000, out::add)).isEqualTo(1);
        assertThat(out).endsWith(3);
    }

    @Test
    @DisplayName("seeded: the same seed and salt give the same output; another salt (receiver) other drops")
    void seeded() {
        DatagramFaults f = DatagramFaults.parse("drop=0.05,dup=0.05,reorder=4,seed=7");
        assertThat(run(f, 1, 5000)).isEqualTo(run(f, 1, 5000));
        assertThat(run(f, 2, 5000)).isNotEqualTo(run(f, 1, 5000));
        assertThat(run(DatagramFaults.NONE, 1, 100)).isEqualTo(java.util.stream.IntStream.range(0, 100).boxed().toList());
    }
}
