package dev.parallax.paxos.spaxos;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/** The leader's id proposer, rule by rule (seed 002 (S-Paxos) §IV-A, Alg. 1 l.16–18, l.32–36). */
class LeaderProposalsTest {
    private static final Predicate<BatchId> NONE_DECIDED = id -> false;
    private static final Predicate<BatchId> ANY = id -> true;

    private static BatchId id(int origin, long sn) {
        return new BatchId(origin, 7, sn);
    }

    @Test
    @DisplayName("seed 002 §IV-A, Alg. 1 l.16–18: while leading, each stable id is pending once, in (origin, inc, sn) order")
    void stableIdsArePendingInOrderWhileLeading() {
        LeaderProposals p = new LeaderProposals();
        p.lead(List.of());
        p.onStable(id(1, 2), NONE_DECIDED);
        p.onStable(id(0, 5), NONE_DECIDED);
        p.onStable(id(1, 1), NONE_DECIDED);
        p.onStable(id(1, 1), NONE_DECIDED);
        assertThat(p.peek(10, ANY)).containsExactly(id(0, 5), id(1, 1), id(1, 2));
        p.take(p.peek(2, ANY));
        assertThat(p.peek(10, ANY)).containsExactly(id(1, 2));
        p.onStable(id(0, 5), NONE_DECIDED);
        assertThat(p.peek(10, ANY)).as("never twice in one leadership").containsExactly(id(1, 2));
    }

    @Test
    @DisplayName("seed 002 §IV-A: a replica that does not lead proposes nothing but remembers stable ids")
    void followersOnlyRemember() {
        LeaderProposals p = new LeaderProposals();
        p.onStable(id(0, 1), NONE_DECIDED);
        assertThat(p.pending()).isZero();
        assertThat(p.stable()).isEqualTo(1);
        p.lead(List.of());
        assertThat(p.peek(10, ANY)).containsExactly(id(0, 1));
    }

    @Test
    @DisplayName("seed 002 §IV-A, Alg. 1 l.32–36, §IV-B b: a new leader proposes stable \\ (reproposed ∪ decided)")
    void newLeaderSkipsReproposedAndDecided() {
        LeaderProposals p = new LeaderProposals();
        Set<BatchId> decided = Set.of(id(2, 1));
        for (long sn = 1; sn <= 4; sn++) {
            p.onStable(id(0, sn), decided::contains);
        }
        p.onStable(id(2, 1), decided::contains);
        p.onDecided(id(0, 4));
        p.lead(List.of(id(0, 2)));
        assertThat(p.peek(10, ANY)).containsExactly(id(0, 1), id(0, 3));
    }

    @Test
    @DisplayName("re-elected, a leader re-proposes an id it proposed before but that Phase 1 did not report (reset, not union)")
    void reElectedLeaderResetsProposed() {
        LeaderProposals p = new LeaderProposals();
        p.lead(List.of());
        p.onStable(id(0, 1), NONE_DECIDED);
        p.take(p.peek(1, ANY));
        assertThat(p.pending()).isZero();
        p.clear();
        assertThat(p.leading()).isFalse();
        p.lead(List.of());
        assertThat(p.peek(10, ANY)).containsExactly(id(0, 1));
    }

    @Test
    @DisplayName("seed 002 footnote 5: ids known decided (after a snapshot install) are pruned")
    void pruneForgetsDecided() {
        LeaderProposals p = new LeaderProposals();
        p.lead(List.of());
        p.onStable(id(0, 1), NONE_DECIDED);
        p.onStable(id(0, 2), NONE_DECIDED);
        p.prune(id -> id.sn() == 1);
        assertThat(p.peek(10, ANY)).containsExactly(id(0, 2));
        assertThat(p.stable()).isEqualTo(1);
    }

    @Test
    @DisplayName("DisseminationCore rule M2': an id not stable under the memberships now stays pending and does not block later ids")
    void anIdNotOrderableNowIsHeldBackAlone() {
        LeaderProposals p = new LeaderProposals();
        p.lead(List.of());
        p.onStable(id(1, 42), NONE_DECIDED);
        p.onStable(id(1, 43), NONE_DECIDED);
        p.onStable(id(2, 1), NONE_DECIDED);
        Predicate<BatchId> orderable = id -> id.origin() != 1;
        List<BatchId> first = p.peek(10, orderable);
        assertThat(first).containsExactly(id(2, 1));
        p.take(first);
        assertThat(p.pending()).as("held back, still pending").isEqualTo(2);
        assertThat(p.peek(10, orderable)).isEmpty();
        assertThat(p.peek(10, ANY)).as("once the new voters hold them").containsExactly(id(1, 42), id(1, 43));
    }
}
