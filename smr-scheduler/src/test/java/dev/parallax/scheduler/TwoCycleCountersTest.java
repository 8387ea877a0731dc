package dev.parallax.scheduler;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lost-reset schedule of seed 001 §6.1 replayed step by step: with one counter per class it
 * deadlocks; with two cycles the second request's arrivals use the other counter.
 */
class TwoCycleCountersTest {

    @Test
    void aThreadThatMissedTheResetStillSeesItsCycleReleased() {
        TwoCycleCounters marks = new TwoCycleCounters(1);
        byte cycleT1 = 0;
        byte cycleT2 = 0;
        cycleT2 ^= 1;
        assertThat(marks.arrive(0, cycleT2)).isEqualTo(1);
        cycleT1 ^= 1;
        assertThat(marks.arrive(0, cycleT1)).isEqualTo(2);
        marks.release(0, cycleT1);
        cycleT1 ^= 1;
        assertThat(marks.arrive(0, cycleT1)).as("t1 arrives for the next request").isEqualTo(1);
        assertThat(marks.released(0, cycleT2)).as("t2, preempted through the reset, sees it").isTrue();
        cycleT2 ^= 1;
        assertThat(marks.arrive(0, cycleT2)).as("t2 completes the next request").isEqualTo(2);
    }

    @Test
    void classesAreIndependent() {
        TwoCycleCounters marks = new TwoCycleCounters(3);
        marks.arrive(0, 1);
        assertThat(marks.released(1, 1)).isTrue();
        assertThat(marks.released(0, 1)).isFalse();
        assertThat(marks.released(0, 0)).isTrue();
    }
}
