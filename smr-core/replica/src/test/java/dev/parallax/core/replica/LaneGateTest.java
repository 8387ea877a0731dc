package dev.parallax.core.replica;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/** The per-worker lanes' gate ({@link LaneGate}): pause waits for the lanes inside, holds new ones, resume frees them. */
class LaneGateTest {

    @Test
    @DisplayName("pause runs the release, waits until no lane is inside, and keeps lanes out until resume")
    void pauseWaitsForLanesInsideAndHoldsNewOnes() throws Exception {
        LaneGate gate = new LaneGate(2);
        gate.enter(0);
        CountDownLatch released = new CountDownLatch(1);
        AtomicBoolean paused = new AtomicBoolean();
        Thread installer = new Thread(() -> {
            try {
                gate.pause(released::countDown);
                paused.set(true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        installer.start();
        assertThat(released.await(30, TimeUnit.SECONDS)).as("the release ran").isTrue();
        assertThat(gate.paused()).isTrue();
        assertThat(paused.get()).as("lane 0 is still inside").isFalse();
        gate.exit(0);
        installer.join(30_000);
        assertThat(paused.get()).as("the pause returned once lane 0 left").isTrue();

        AtomicBoolean entered = new AtomicBoolean();
        Thread lane = new Thread(() -> {
            try {
                gate.enter(1);
                entered.set(true);
                gate.exit(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        lane.start();
        lane.join(200);
        assertThat(entered.get()).as("held while paused").isFalse();
        gate.resume();
        lane.join(30_000);
        assertThat(entered.get()).as("entered after resume").isTrue();
    }

    @Test
    @DisplayName("a lane held by a pause is interrupted when its stream closes")
    void aHeldLaneIsInterruptible() throws Exception {
        LaneGate gate = new LaneGate(1);
        gate.pause(() -> { });
        AtomicBoolean interrupted = new AtomicBoolean();
        Thread lane = new Thread(() -> {
            try {
                gate.enter(0);
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
        });
        lane.start();
        lane.interrupt();
        lane.join(30_000);
        assertThat(interrupted.get()).isTrue();
    }
}
