package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.EffectBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RingAcceptorTest {
    private static final ValueId A = new ValueId(1, 0, 1);
    private static final ValueId B = new ValueId(2, 0, 1);
    private static final ByteBuffer VA = ByteBuffer.wrap(new byte[]{1});
    private static final ByteBuffer VB = ByteBuffer.wrap(new byte[]{2, 2});

    private final EffectBuffer<RingWire, RingRecord, RingValue> out = new EffectBuffer<>();

    @Test
    @DisplayName("C4 (Alg. 1 l.20): votes iff round >= rnd, then rnd = round; the vote is persisted with sync")
    void votesAtOrAboveItsRound() {
        RingAcceptor a = new RingAcceptor(List.of());
        a.promise(3, out);
        out.clear();
        assertThat(a.vote(0, 2, A, VA, out)).isFalse();
        assertThat(out.records()).isEmpty();
        assertThat(a.vote(0, 3, A, VA, out)).isTrue();
        assertThat(out.records()).containsExactly(new RingRecord.VoteRecord(0, 3, A, VA));
        assertThat(out.syncRequested()).isTrue();
        assertThat(a.vote(1, 5, B, VB, out)).isTrue();
        assertThat(a.rnd()).isEqualTo(5);
        assertThat(a.vote(2, 4, A, VA, out)).isFalse();
    }

    @Test
    @DisplayName("C4: the same (round, vid) again is idempotent (no record); another vid in the round is refused and counted")
    void idempotentAndOneVidPerRound() {
        RingAcceptor a = new RingAcceptor(List.of());
        assertThat(a.vote(0, 0, A, VA, out)).isTrue();
        out.clear();
        assertThat(a.vote(0, 0, A, VA, out)).isTrue();
        assertThat(out.records()).isEmpty();
        assertThat(a.vote(0, 0, B, VB, out)).isFalse();
        assertThat(a.refused()).isEqualTo(1);
        assertThat(a.votedVid(0, 0)).isEqualTo(A);
        assertThat(a.vote(0, 1, B, VB, out)).isTrue();
        assertThat(a.votedVid(0, 1)).isEqualTo(B);
        assertThat(a.votedVid(0, 0)).isNull();
    }

    @Test
    @DisplayName("C4/C9 (Alg. 1 l.8): no vote below the trim point; the checkpoint re-persists trim, promise and votes")
    void trimAndCheckpoint() {
        RingAcceptor a = new RingAcceptor(List.of());
        a.vote(0, 0, A, VA, out);
        a.vote(5, 0, B, VB, out);
        a.trimBelow(3);
        out.clear();
        assertThat(a.vote(2, 0, A, VA, out)).isFalse();
        a.checkpoint(out);
        assertThat(out.records()).containsExactly(new RingRecord.Trim(3), new RingRecord.Promise(0),
                new RingRecord.VoteRecord(5, 0, B, VB));
    }

    @Test
    @DisplayName("§3.3.5: a restarted acceptor recovers its round and its highest-round votes from its log")
    void recovers() {
        RingAcceptor a = new RingAcceptor(List.of(new RingRecord.Promise(4), new RingRecord.VoteRecord(1, 2, A, VA),
                new RingRecord.VoteRecord(1, 6, B, VB), new RingRecord.VoteRecord(0, 1, A, VA), new RingRecord.Trim(1)));
        assertThat(a.rnd()).isEqualTo(6);
        assertThat(a.durableRound()).isEqualTo(6);
        assertThat(a.voteAt(1).vid()).isEqualTo(B);
        assertThat(a.voteAt(0)).isNull();
        assertThat(a.highestVoted()).isEqualTo(1);
    }

    @Test
    @DisplayName("C1 paging: a Phase 1B page holds at most catchup.max.instances/bytes votes, the first always goes")
    void pages() {
        RingAcceptor a = new RingAcceptor(List.of());
        for (int i = 0; i < 5; i++) {
            a.vote(i, 0, new ValueId(1, 0, i + 1), ByteBuffer.wrap(new byte[10]), out);
        }
        long[] cont = new long[1];
        assertThat(a.page(1, 2, 1000, cont)).extracting(Vote::instance).containsExactly(1L, 2L);
        assertThat(cont[0]).isEqualTo(3);
        assertThat(a.page(3, 10, 1000, cont)).extracting(Vote::instance).containsExactly(3L, 4L);
        assertThat(cont[0]).isEqualTo(RingMessage.Phase1B.COMPLETE);
        assertThat(a.page(0, 10, 5, cont)).extracting(Vote::instance).containsExactly(0L);
        assertThat(cont[0]).isEqualTo(1);
    }
}
