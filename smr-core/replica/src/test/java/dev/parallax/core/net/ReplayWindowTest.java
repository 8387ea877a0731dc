package dev.parallax.core.net;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ReplayWindowTest {

    @Test
    @DisplayName("each counter of a sender epoch is accepted once; reordering inside the window is accepted, below it refused")
    void onceEachInsideTheWindow() {
        ReplayWindow w = new ReplayWindow(2);
        assertThat(w.accept(0, 7, 0)).as("counters start at 1").isFalse();
        assertThat(w.accept(0, 7, 1)).isTrue();
        assertThat(w.accept(0, 7, 1)).as("a copy").isFalse();
        assertThat(w.accept(0, 7, 5)).isTrue();
        assertThat(w.accept(0, 7, 3)).as("late, inside the window").isTrue();
        assertThat(w.accept(0, 7, 3)).isFalse();
        assertThat(w.accept(0, 7, 5 + ReplayWindow.WIDTH)).isTrue();
        assertThat(w.accept(0, 7, 5)).as("exactly one window below the highest").isFalse();
        assertThat(w.accept(0, 7, 6)).as("the oldest counter still inside").isTrue();
        assertThat(w.accept(1, 7, 1)).as("another sender, the same numbers").isTrue();
    }

    @Test
    @DisplayName("a new epoch (a restarted sender) starts its own counters; the earlier epoch's copies stay refused")
    void epochsApart() {
        ReplayWindow w = new ReplayWindow(1);
        for (long c = 1; c <= 10; c++) {
            assertThat(w.accept(0, 100, c)).isTrue();
        }
        assertThat(w.accept(0, 200, 1)).as("the restarted sender").isTrue();
        assertThat(w.accept(0, 100, 10)).as("a copy from the earlier incarnation").isFalse();
        assertThat(w.accept(0, 100, 4)).isFalse();
        for (long e = 1; e < ReplayWindow.EPOCHS - 1; e++) { // eight epochs in all
            assertThat(w.accept(0, 1000 + e, 1)).isTrue();
        }
        assertThat(w.accept(0, 200, 1)).as("still remembered among the last " + ReplayWindow.EPOCHS).isFalse();
    }
}
