package dev.parallax.ringpaxos;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PhaseOneTest {
    private static final ValueId A = new ValueId(1, 0, 1);
    private static final ValueId B = new ValueId(2, 0, 1);
    private static final ByteBuffer V = ByteBuffer.wrap(new byte[]{7});

    private static RingMessage.Phase1B page(long trimmed, List<Vote> votes, long cont) {
        return new RingMessage.Phase1B(9, trimmed, 0, votes, cont);
    }

    @Test
    @DisplayName("C1 (Alg. 3 l.13–16): the highest-round vote wins; gaps become NOOP")
    void highestRoundWinsAndGapsAreNoops() {
        PhaseOne p = new PhaseOne(9, 0, 2, 0);
        p.onPage(0, page(0, List.of(new Vote(0, 1, A, V), new Vote(2, 3, A, V)), -1));
        p.onPage(1, page(0, List.of(new Vote(0, 4, B, V)), -1));
        assertThat(p.done()).isTrue();
        var re = p.reproposals();
        assertThat(re.keySet()).containsExactly(0L, 1L, 2L);
        assertThat(re.get(0L).vid()).isEqualTo(B);
        assertThat(re.get(1L).vid()).isEqualTo(ValueId.NOOP);
        assertThat(re.get(2L).vid()).isEqualTo(A);
    }

    @Test
    @DisplayName("C1: completes on f+1 complete answers only; a partial page does not count")
    void completesOnQuorumOfCompleteAnswers() {
        PhaseOne p = new PhaseOne(9, 0, 2, 0);
        assertThat(p.onPage(0, page(0, List.of(new Vote(0, 1, A, V)), 1))).isFalse();
        p.onPage(1, page(0, List.of(), -1));
        assertThat(p.done()).isFalse();
        assertThat(p.answered(0)).isFalse();
        assertThat(p.onPage(0, page(0, List.of(new Vote(1, 1, B, V)), -1))).isTrue();
        assertThat(p.done()).isTrue();
        assertThat(p.responders()).containsExactly(0, 1);
        assertThat(p.reproposals().keySet()).containsExactly(0L, 1L);
    }

    @Test
    @DisplayName("C1: never below a trim point (trimmed instances are decided); nothing reported, nothing re-proposed")
    void neverBelowATrimPoint() {
        PhaseOne p = new PhaseOne(9, 2, 2, 0);
        p.onPage(0, page(0, List.of(new Vote(2, 1, A, V), new Vote(6, 1, B, V)), -1));
        p.onPage(1, page(5, List.of(), -1));
        assertThat(p.start()).isEqualTo(5);
        assertThat(p.reproposals().keySet()).containsExactly(5L, 6L);
        PhaseOne empty = new PhaseOne(3, 0, 1, 0);
        empty.onPage(0, page(0, List.of(), -1));
        assertThat(empty.reproposals()).isEmpty();
    }
}
