package dev.parallax.core.liveness;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The member detector, stepped by hand on a manual clock (seed 003 (Ring Paxos) §3.3.6: any silent ring member is suspected). */
class MemberDetectorTest {
    private static final long TIMEOUT = 100;

    private final AtomicLong time = new AtomicLong(0);
    private final AtomicLong epoch = new AtomicLong(-1);
    private final AtomicLong mask = new AtomicLong(0b1111); // members 0..3 (1 is self)
    private final List<String> suspected = new ArrayList<>();
    private final PeerLiveness liveness = new PeerLiveness(4, time::get);
    private final MemberDetector detector = new MemberDetector("md-1", 1, liveness,
            (e, member, lastHeard, now) -> now - lastHeard >= TIMEOUT, epoch::get, mask::get,
            (e, member) -> suspected.add(e + "/" + member), time::get);

    @Test
    @DisplayName("nothing before the protocol publishes an epoch")
    void notStarted() {
        time.set(10 * TIMEOUT);
        assertThat(detector.doWork()).isZero();
        assertThat(suspected).isEmpty();
    }

    @Test
    @DisplayName("each silent watched member is suspected once per time-out of silence in an epoch; self and members heard from are not")
    void silentMembersOncePerTimeout() {
        epoch.set(3);
        detector.doWork();
        for (long t = TIMEOUT / 4; t < 3 * TIMEOUT; t += TIMEOUT / 4) {
            time.set(t);
            liveness.heard(2); // 2 keeps talking
            if (t < TIMEOUT / 2) {
                liveness.heard(3); // 3 falls silent at 25
            }
            detector.doWork();
        }
        // 0 at 100 and again a time-out later at 200, 3 at 125 and 225; 1 is self, 2 talks.
        assertThat(suspected).containsExactly("3/0", "3/3", "3/0", "3/3");
        assertThat(detector.suspicions()).isEqualTo(4);

        // A new epoch restarts every clock; the same members may be suspected again in it.
        suspected.clear();
        mask.set(0b0111); // 3 is no longer watched
        epoch.set(4);
        time.set(3 * TIMEOUT);
        assertThat(detector.doWork()).isZero();
        time.set(4 * TIMEOUT - 1);
        liveness.heard(2);
        assertThat(detector.doWork()).isZero();
        time.set(4 * TIMEOUT);
        assertThat(detector.doWork()).isEqualTo(1);
        time.set(5 * TIMEOUT - 1);
        liveness.heard(2);
        assertThat(detector.doWork()).as("not again before a full time-out").isZero();
        assertThat(suspected).containsExactly("4/0");

        // A lower epoch than one seen is ignored.
        epoch.set(2);
        time.set(20 * TIMEOUT);
        assertThat(detector.doWork()).isZero();
        assertThat(detector.suspicions()).isEqualTo(5);
    }

    @Test
    @DisplayName("a member still silent a full time-out after it was handed over is handed over again (the protocol's move may have come to nothing); one heard meanwhile is not until it falls silent again")
    void stillSilentIsSuspectedAgain() {
        epoch.set(7);
        detector.doWork();
        time.set(TIMEOUT);
        assertThat(detector.doWork()).isEqualTo(3);   // 0, 2, 3 never heard in epoch 7
        assertThat(suspected).containsExactly("7/0", "7/2", "7/3");
        time.set(TIMEOUT + TIMEOUT / 2);
        liveness.heard(2);                              // 2 speaks up
        assertThat(detector.doWork()).isZero();
        time.set(2 * TIMEOUT);
        assertThat(detector.doWork()).isEqualTo(2);   // 0 and 3 still silent: again
        time.set(2 * TIMEOUT + TIMEOUT / 2);
        assertThat(detector.doWork()).isEqualTo(1);   // 2 silent a time-out since it was heard
        assertThat(suspected).containsExactly("7/0", "7/2", "7/3", "7/0", "7/3", "7/2");
    }

    @Test
    @DisplayName("a member outside the liveness table is never suspected (bad mask bits do not crash)")
    void badMaskBitsAreIgnored() {
        epoch.set(0);
        mask.set(1L << 40 | 1L << 63);
        detector.doWork();
        time.set(10 * TIMEOUT);
        assertThat(detector.doWork()).isZero();
        assertThat(suspected).isEmpty();
    }
}
