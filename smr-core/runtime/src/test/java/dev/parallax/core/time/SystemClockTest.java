package dev.parallax.core.time;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SystemClockTest {

    @Test
    void readingsNeverDecreaseOnOneThread() {
        Clock clock = SystemClock.INSTANCE;
        long previous = clock.nanoTime();
        for (int i = 0; i < 10_000; i++) {
            long now = clock.nanoTime();
            assertThat(now).isGreaterThanOrEqualTo(previous);
            previous = now;
        }
    }

    @Test
    void aLambdaIsAClock() {
        long[] virtual = {42};
        Clock clock = () -> virtual[0];
        assertThat(clock.nanoTime()).isEqualTo(42);
        virtual[0] = 100;
        assertThat(clock.nanoTime()).isEqualTo(100);
    }
}
