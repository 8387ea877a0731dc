package dev.parallax.scheduler;

import dev.parallax.core.Command;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The stealing conditions of seed 001 Alg. 8, 11 and 14 on one ready queue. */
class ReadyQueueTest {
    private static final Command C = Command.of(1, 1, new byte[0]);

    @Test
    void onlyConcurrentWorkIsStolenWholeAndTheMarkerIsSet() {
        ReadyQueue q = new ReadyQueue(4, 3, 2);
        q.put(C, 0, false);
        q.put(C, 0, false);
        TaskBatch spare = new TaskBatch(4);
        TaskBatch stolen = q.steal(spare, 1, null);
        assertThat(stolen.size()).isEqualTo(2);
        assertThat(q.size()).isZero();
        assertThat(q.hasStealers()).isTrue();
        q.stealDone(1);
        assertThat(q.hasStealers()).isFalse();
        q.put(C, 0, false);
        assertThat(q.steal(new TaskBatch(4), 1, null)).as("the spare became the ready queue").isNotNull();
    }

    @Test
    void aSequentialRequestReadyOrExecutingForbidsStealing() {
        ReadyQueue q = new ReadyQueue(4, 3, 2);
        q.put(C, 0, false);
        q.put(C, 1, true);
        assertThat(q.stealable(null)).isFalse();
        TaskBatch exec = q.transfer(new TaskBatch(4));
        assertThat(exec.size()).isEqualTo(2);
        q.put(C, 0, false);
        assertThat(q.stealable(null)).as("execFlag set while the SEQ request is in the exec batch").isFalse();
        q.transfer(new TaskBatch(4));
        q.put(C, 0, false);
        assertThat(q.stealable(null)).isTrue();
    }

    @Test
    void aWaitingStealerTakesNoClassConflictingWithItsRequest() {
        ReadyQueue q = new ReadyQueue(4, 70, 2);
        q.put(C, 65, false);
        long[] conflictsWith65 = {0L, 1L << 1};
        long[] conflictsWith0 = {1L, 0L};
        assertThat(q.stealable(conflictsWith65)).isFalse();
        assertThat(q.steal(new TaskBatch(4), 0, conflictsWith65)).isNull();
        assertThat(q.stealable(conflictsWith0)).isTrue();
    }

    @Test
    void spaceIsBounded() {
        ReadyQueue q = new ReadyQueue(2, 1, 1);
        q.put(C, 0, false);
        assertThat(q.hasSpace()).isTrue();
        q.put(C, 0, false);
        assertThat(q.hasSpace()).isFalse();
    }
}
