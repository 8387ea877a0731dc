package dev.parallax.core.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class EpochClockTest {

    @Test
    void readsTheWallClockAtConstructionPlusMonotonicProgress() {
        long[] mono = {-5_000};     // System.nanoTime may be negative: only differences count
        EpochClock clock = new EpochClock(1_700_000_000_123L, () -> mono[0]);
        assertThat(clock.nanoTime()).isEqualTo(1_700_000_000_123_000_000L);
        mono[0] += 2_500_000;
        assertThat(clock.nanoTime()).isEqualTo(1_700_000_000_125_500_000L);
    }

    @Test
    void neverGoesBackEvenIfTheSourceDoes() {
        long[] mono = {1_000};
        EpochClock clock = new EpochClock(10, () -> mono[0]);
        mono[0] = 2_000;
        long high = clock.nanoTime();
        mono[0] = 1_500;    // a misbehaving source
        assertThat(clock.nanoTime()).isEqualTo(high).isEqualTo(10_000_000L + 1_000);
    }

    @Test
    void theRealClockIsNearTheWallClockAndMonotonic() {
        long before = System.currentTimeMillis();
        EpochClock clock = new EpochClock();
        long reading = clock.nanoTime();
        long after = System.currentTimeMillis();
        // Generous bounds: a loaded machine may pause between the reads; the clock is anchored within them.
        assertThat(reading / 1_000_000).isBetween(before, after + 60_000);
        long previous = reading;
        for (int i = 0; i < 10_000; i++) {
            long now = clock.nanoTime();
            assertThat(now).isGreaterThanOrEqualTo(previous);
            previous = now;
        }
    }

    @Test
    void refusesAnOriginNanosecondsCannotHold() {
        assertThatThrownBy(() -> new EpochClock(-1, System::nanoTime)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new EpochClock(Long.MAX_VALUE / 1_000_000 + 1, System::nanoTime))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
