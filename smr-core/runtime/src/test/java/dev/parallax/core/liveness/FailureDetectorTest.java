package dev.parallax.core.liveness;

import dev.parallax.core.stage.StageRunner;
import dev.parallax.core.stage.WaitStrategies;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The detector, stepped by hand on a manual clock; one test runs it on its own thread. */
class FailureDetectorTest {
    private static final long TIMEOUT = 100;

    /** Three members; the leader of view v is v mod 3; a flat timeout. */
    private static final FailureDetector.Rule RULE = new FailureDetector.Rule() {
        @Override
        public int leaderOf(long view) {
            return (int) (view % 3);
        }

        @Override
        public boolean suspects(long view, long lastHeard, long now) {
            return now - lastHeard >= TIMEOUT;
        }
    };

    private final AtomicLong time = new AtomicLong(0);
    private final AtomicLong view = new AtomicLong(0);
    private final List<Long> suspected = new ArrayList<>();
    private final PeerLiveness liveness = new PeerLiveness(3, time::get);
    private final FailureDetector detector =
            new FailureDetector("fd-1", 1, liveness, RULE, view::get, suspected::add, time::get);

    @Test
    void aLeaderThatKeepsSendingIsNeverSuspected() {
        for (long t = 0; t <= 10 * TIMEOUT; t += TIMEOUT / 4) {
            time.set(t);
            liveness.heard(0);
            assertThat(detector.doWork()).isZero();
        }
        assertThat(suspected).isEmpty();
        assertThat(detector.suspicions()).isZero();
    }

    @Test
    void aSilentLeaderIsSuspectedOnceWhenTheRuleSaysSo() {
        detector.doWork();
        time.set(30);
        liveness.heard(0);
        time.set(30 + TIMEOUT - 1);
        assertThat(detector.doWork()).isZero();
        liveness.heard(2); // another follower's frames do not vouch for the leader
        time.set(30 + TIMEOUT);
        assertThat(detector.doWork()).isEqualTo(1);
        time.set(30 + 5 * TIMEOUT);
        assertThat(detector.doWork()).isZero();
        assertThat(suspected).containsExactly(0L);
        assertThat(detector.suspicions()).isEqualTo(1);
    }

    @Test
    void aNewViewStartsTheSuspicionClockOver() {
        detector.doWork();
        time.set(TIMEOUT);
        assertThat(detector.doWork()).isEqualTo(1);
        view.set(3); // led by 0 again, whose stamp is old
        time.set(TIMEOUT + 10);
        assertThat(detector.doWork()).isZero();
        time.set(2 * TIMEOUT + 9);
        assertThat(detector.doWork()).isZero();
        time.set(2 * TIMEOUT + 10);
        assertThat(detector.doWork()).isEqualTo(1);
        assertThat(suspected).containsExactly(0L, 3L);
    }

    @Test
    void inAViewItLeadsTheReplicaCountsOnlyTheTimeSinceTheViewStarted() {
        view.set(1); // led by this replica: a restarted replica following its own old view
        time.set(10);
        detector.doWork();
        liveness.heard(1); // its own loopback must not keep the view alive
        time.set(10 + TIMEOUT);
        assertThat(detector.doWork()).isEqualTo(1);
        assertThat(suspected).containsExactly(1L);
    }

    @Test
    void nothingIsSuspectedBeforeTheProtocolPublishedAView() {
        view.set(-1);
        time.set(10 * TIMEOUT);
        assertThat(detector.doWork()).isZero();
        assertThat(suspected).isEmpty();
    }

    @Test
    void onItsOwnThreadItSuspectsASilentLeaderAndStopsWithItsRunner() throws InterruptedException {
        CountDownLatch suspicion = new CountDownLatch(1);
        PeerLiveness real = new PeerLiveness(3, System::nanoTime);
        long timeout = TimeUnit.MILLISECONDS.toNanos(50);
        FailureDetector.Rule rule = new FailureDetector.Rule() {
            @Override
            public int leaderOf(long v) {
                return 0;
            }

            @Override
            public boolean suspects(long v, long lastHeard, long now) {
                return now - lastHeard >= timeout;
            }
        };
        long start = System.nanoTime();
        FailureDetector fd = new FailureDetector("fd-thread-test", 1, real, rule, () -> 0L,
                v -> suspicion.countDown(), System::nanoTime);
        StageRunner runner = StageRunner.builder(fd).waitStrategy(WaitStrategies.park(timeout / 4)).build();
        runner.start();
        try {
            assertThat(suspicion.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(timeout);
        } finally {
            runner.close();
        }
        assertThat(runner.isRunning()).isFalse();
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("fd-thread-test"));
    }
}
