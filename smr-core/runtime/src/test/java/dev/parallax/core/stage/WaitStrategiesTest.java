package dev.parallax.core.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WaitStrategiesTest {

    private final List<Long> parks = new ArrayList<>();
    private final Parker recordingParker = parks::add;

    @Test
    void parseKnowsEveryNameWithDefaults() {
        assertThat(WaitStrategies.parse("busy-spin")).isEqualTo(WaitStrategies.busySpin());
        assertThat(WaitStrategies.parse(" Yield-Park ")).isEqualTo(WaitStrategies.yieldPark());
        assertThat(WaitStrategies.parse("PARK")).isEqualTo(WaitStrategies.park());
        assertThat(WaitStrategies.parse("shared")).isEqualTo(WaitStrategies.shared());
        assertThat(WaitStrategies.parse("shared").create(recordingParker)).isInstanceOf(YieldParkWaitStrategy.class);
        assertThat(WaitStrategies.parse("busy-spin").create(recordingParker)).isInstanceOf(BusySpinWaitStrategy.class);
        assertThat(WaitStrategies.parse("yield-park").create(recordingParker)).isInstanceOf(YieldParkWaitStrategy.class);
        assertThat(WaitStrategies.parse("park").create(recordingParker)).isInstanceOf(ParkWaitStrategy.class);
    }

    @Test
    void parseRejectsUnknownNames() {
        assertThatThrownBy(() -> WaitStrategies.parse("sleep"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("busy-spin").hasMessageContaining("yield-park").hasMessageContaining("park")
                .hasMessageContaining("shared");
        assertThatThrownBy(() -> WaitStrategies.parse(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void eachCreateReturnsAFreshInstance() {
        WaitStrategy.Factory factory = WaitStrategies.yieldPark();
        assertThat(factory.create(recordingParker)).isNotSameAs(factory.create(recordingParker));
    }

    @Test
    void yieldParkSpinsThenYieldsThenParksWithExponentialBackoffAndResetsOnWork() {
        WaitStrategy strategy = WaitStrategies.yieldPark(2, 1, 10, 40).create(recordingParker);
        strategy.idle(0);
        strategy.idle(0);
        strategy.idle(0);
        assertThat(parks).as("two spins and one yield do not park").isEmpty();
        for (int i = 0; i < 4; i++) {
            strategy.idle(0);
        }
        assertThat(parks).containsExactly(10L, 20L, 40L, 40L);

        strategy.idle(7);
        parks.clear();
        for (int i = 0; i < 5; i++) {
            strategy.idle(0);
        }
        assertThat(parks).as("work resets to spinning").containsExactly(10L, 20L);

        strategy.reset();
        parks.clear();
        for (int i = 0; i < 4; i++) {
            strategy.idle(0);
        }
        assertThat(parks).containsExactly(10L);
    }

    @Test
    void yieldParkBackoffDoesNotOverflow() {
        WaitStrategy strategy = WaitStrategies.yieldPark(0, 0, Long.MAX_VALUE / 3, Long.MAX_VALUE).create(recordingParker);
        strategy.idle(0);
        strategy.idle(0);
        strategy.idle(0);
        assertThat(parks).containsExactly(Long.MAX_VALUE / 3, Long.MAX_VALUE / 3 * 2, Long.MAX_VALUE);
    }

    @Test
    void parkParksForTheFixedTimeOnlyWhenIdle() {
        WaitStrategy strategy = WaitStrategies.park(TimeUnit.MICROSECONDS.toNanos(50)).create(recordingParker);
        strategy.idle(3);
        strategy.idle(0);
        strategy.idle(0);
        strategy.reset();
        strategy.idle(0);
        assertThat(parks).containsExactly(50_000L, 50_000L, 50_000L);
    }

    @Test
    void sharedSpinsAndYieldsBrieflyThenParksFrom50MicrosDoublingToOneMilli() {
        WaitStrategy strategy = WaitStrategies.shared().create(recordingParker);
        for (int i = 0; i < 24; i++) {
            strategy.idle(0);
        }
        assertThat(parks).as("20 spins and 4 yields do not park").isEmpty();
        for (int i = 0; i < 8; i++) {
            strategy.idle(0);
        }
        assertThat(parks).containsExactly(50_000L, 100_000L, 200_000L, 400_000L, 800_000L,
                1_000_000L, 1_000_000L, 1_000_000L);

        strategy.idle(1);
        parks.clear();
        for (int i = 0; i < 25; i++) {
            strategy.idle(0);
        }
        assertThat(parks).as("work starts the backoff over").containsExactly(50_000L);
    }

    @Test
    void busySpinNeverParks() {
        WaitStrategy strategy = WaitStrategies.busySpin().create(recordingParker);
        for (int i = 0; i < 1000; i++) {
            strategy.idle(0);
        }
        strategy.reset();
        assertThat(parks).isEmpty();
    }

    @Test
    void boundsAreValidated() {
        assertThatThrownBy(() -> WaitStrategies.yieldPark(-1, 0, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WaitStrategies.yieldPark(0, -1, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WaitStrategies.yieldPark(0, 0, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WaitStrategies.yieldPark(0, 0, 10, 5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WaitStrategies.park(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WaitStrategies.park().create(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> WaitStrategies.busySpin().create(null)).isInstanceOf(NullPointerException.class);
    }
}
