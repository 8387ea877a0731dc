package dev.parallax.ringpaxos;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** M5, re-sending the M-Ring coordinator's open 2As (seed 003 (Ring Paxos) §3.3.4 ¶2). */
class RetransmitterTest {
    private static final long MS = 1_000_000L;
    private static final Ring RING = Ring.mRing(2, new int[] {0});

    private static Phase2Entry entry(long instance, int bytes) {
        return new Phase2Entry(instance, new ValueId(0, 1, instance + 1), ByteBuffer.allocate(bytes).asReadOnlyBuffer());
    }

    private static List<Long> instances(List<Retransmitter.Open> due) {
        return due.stream().map(o -> o.entry().instance()).toList();
    }

    @Test
    @DisplayName("M5 (§3.3.4 ¶2): an entry is due again after mring.retransmit, oldest first, then waits another period")
    void dueAfterThePeriod() {
        Retransmitter r = new Retransmitter();
        r.opened(entry(0, 10), 2, RING, false, 0);
        r.opened(entry(1, 10), 2, RING, false, 5 * MS);
        assertThat(r.due(19 * MS, 20 * MS, 1 << 20, i -> false)).isEmpty();
        assertThat(instances(r.due(20 * MS, 20 * MS, 1 << 20, i -> false))).containsExactly(0L);
        assertThat(instances(r.due(25 * MS, 20 * MS, 1 << 20, i -> false))).containsExactly(1L);
        assertThat(r.due(39 * MS, 20 * MS, 1 << 20, i -> false)).isEmpty();
        assertThat(instances(r.due(45 * MS, 20 * MS, 1 << 20, i -> false))).containsExactly(0L, 1L);
        assertThat(r.retransmitted()).isEqualTo(4);
    }

    @Test
    @DisplayName("M5: at most mring.retransmit.max.bytes per tick, but the first due entry always goes")
    void byteBudgetPerTick() {
        Retransmitter r = new Retransmitter();
        r.opened(entry(0, 600), 2, RING, false, 0);
        r.opened(entry(1, 600), 2, RING, false, 0);
        r.opened(entry(2, 600), 2, RING, false, 0);
        assertThat(instances(r.due(20 * MS, 20 * MS, 1000, i -> false))).containsExactly(0L);
        assertThat(instances(r.due(20 * MS, 20 * MS, 1200, i -> false))).containsExactly(1L, 2L);
        Retransmitter big = new Retransmitter();
        big.opened(entry(7, 5000), 2, RING, true, 0);
        assertThat(big.due(20 * MS, 20 * MS, 1000, i -> false)).singleElement()
                .satisfies(o -> assertThat(o.unicast()).isTrue());
    }

    @Test
    @DisplayName("M5: decided entries are never re-sent; closed and cleared ones neither")
    void decidedClosedCleared() {
        Retransmitter r = new Retransmitter();
        r.opened(entry(0, 1), 2, RING, false, 0);
        r.opened(entry(1, 1), 2, RING, false, 0);
        r.opened(entry(2, 1), 2, RING, false, 0);
        r.closed(1);
        assertThat(instances(r.due(20 * MS, 20 * MS, 1 << 20, i -> i == 0))).containsExactly(2L);
        assertThat(r.size()).isEqualTo(1);
        r.clear();
        assertThat(r.due(100 * MS, 20 * MS, 1 << 20, i -> false)).isEmpty();
        assertThat(r.size()).isZero();
    }
}
