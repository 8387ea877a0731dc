package dev.parallax.ringpaxos;

import dev.parallax.core.membership.MembershipChange;
import dev.parallax.core.testkit.ScriptedCluster;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.parallax.ringpaxos.RingCluster.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A coordinator restart during a replacement (rule C8; G5, G7, G8 of {@link RingGroup}): voters
 * {0, 1, 2} with 1 dead, learner 6 added, "replace 1 by 6" asked (refused while 6 has not caught
 * up), then the coordinator 0 is killed and restarted from its durable log. Its only live peer, 2,
 * must form a ring with it again. Hand-driven cores that detect failures as replicas do: external
 * detection, with the runtime's member detector emulated over arrival stamps. With
 * {@code crossRingStamps} every live process counts as heard, as on a replica whose other rings
 * keep the replica port busy. The learner is up, down, or up but silent (it sends nothing).
 */
class RingCoordinatorRestartTest {
    private static final int ALPHA = 32;
    private static final long MS = 1_000_000L;
    private static final int PROCESSES = 8;
    private static final int SURVIVOR = 2;
    private static final int COORDINATOR = 0;
    private static final int DEAD = 1;
    private static final int LEARNER = 6;

    private static RingConfig config() {
        return RingConfig.builder(3, Ring.Kind.U_RING).memberIds(8).window(ALPHA)
                .heartbeat(Duration.ofMillis(50)).suspect(Duration.ofMillis(500)).restartHold(Duration.ofMillis(500)).build();
    }

    /**
     * Cores with external failure detection and a member detector per process over arrival stamps
     * (as {@code MemberDetector}: per epoch, handed over again after a further time-out of silence).
     * Not thread-safe: the test thread drives it.
     */
    private static final class Cluster extends ScriptedCluster<RingPaxosCore, RingWire, RingRecord, RingValue> {
        final RingConfig config;
        final boolean crossRingStamps;
        final long[][] heard = new long[PROCESSES][PROCESSES];
        final long[][] handed = new long[PROCESSES][PROCESSES];
        final long[] epoch = new long[PROCESSES];
        final long[] epochSeen = new long[PROCESSES];
        final boolean[] down = new boolean[PROCESSES];

        Cluster(RingConfig config, boolean crossRingStamps) {
            super(PROCESSES, new RingRecordCodec(), (id, recovered, now) -> {
                RingPaxosCore c = new RingPaxosCore(config, id, recovered, false, now, now, RingPaxosCore.Observer.NONE);
                c.detectFailuresExternally();
                return c;
            });
            this.config = config;
            this.crossRingStamps = crossRingStamps;
            java.util.Arrays.fill(epoch, -1);
            autoDelivered(true);
        }

        final java.util.Set<Integer> mute = new java.util.HashSet<>();

        void mute(int id) {
            mute.add(id);
            for (int k = 0; k < PROCESSES; k++) {
                if (k != id) {
                    cutLink(id, k);
                }
            }
        }

        void down(int id, boolean d) {
            down[id] = d;
            isolate(id);
            if (!d) {
                heal();
                for (int k = 0; k < PROCESSES; k++) {
                    if (down[k]) {
                        isolate(k);
                    }
                }
                for (int m : new ArrayList<>(mute)) {
                    mute(m);
                }
            }
        }

        void step(long ms) {
            tick(ms * MS);
            int n = 0;
            while (pending() > 0 && n++ < 20_000) {
                Envelope<RingWire> e = queued().get(0);
                if (!down[e.from()] && !down[e.to()] && !mute.contains(e.from())) {
                    heard[e.to()][e.from()] = now();
                }
                deliverNext();
            }
            if (crossRingStamps) {
                for (int r = 0; r < PROCESSES; r++) {
                    for (int s = 0; s < PROCESSES; s++) {
                        if (!down[r] && !down[s]) {
                            heard[r][s] = now();
                        }
                    }
                }
            }
            detect();
        }

        private void detect() {
            for (int id = 0; id < PROCESSES; id++) {
                if (down[id]) {
                    continue;
                }
                RingPaxosCore c = core(id);
                long e = c.watchedEpoch();
                if (e < 0 || e < epoch[id]) {
                    continue;
                }
                if (e > epoch[id]) {
                    epoch[id] = e;
                    epochSeen[id] = now();
                    java.util.Arrays.fill(handed[id], Long.MIN_VALUE);
                }
                RingSuspicion rule = new RingSuspicion(config, id, c::membership);
                long mask = c.watchedMask();
                for (int m = 0; m < PROCESSES; m++) {
                    if (m == id || (mask & (1L << m)) == 0) {
                        continue;
                    }
                    long last = Math.max(Math.max(heard[id][m], epochSeen[id]), handed[id][m]);
                    if (rule.suspects(e, m, last, now())) {
                        handed[id][m] = now();
                        suspectMember(id, m, e);
                    }
                }
            }
        }

        void run(long ms, int proposalsEvery, String tag) {
            for (long t = 0, k = 0; t < ms; t += 10, k++) {
                if (proposalsEvery > 0 && k % proposalsEvery == 0) {
                    for (int id : new int[] {SURVIVOR, COORDINATOR}) {
                        if (!down[id]) {
                            propose(id, batch(tag + "-" + id + "-" + k));
                        }
                    }
                }
                step(10);
            }
        }

        String change(int id, MembershipChange change) {
            String[] refusal = new String[1];
            act(id, "membership " + change, (core, now, out) -> refusal[0] = core.proposeMembership(change, now, out));
            return refusal[0];
        }

        String state() {
            StringBuilder b = new StringBuilder();
            for (int id : new int[] {SURVIVOR, COORDINATOR, DEAD, LEARNER}) {
                RingPaxosCore c = core(id);
                b.append(String.format("%n%d: round %d leads %b ring %s fu %d", id, c.round(), c.isCoordinator(), c.ring(),
                        c.firstUndecided()));
            }
            return b.toString();
        }

        int texts(int id, String prefix) {
            int n = 0;
            for (RingValue v : delivered(id)) {
                RingValue.Chosen ch = (RingValue.Chosen) v;
                if (ch.vid().isClientValue() && RingCluster.text(ch.bytes()).startsWith(prefix)) {
                    n++;
                }
            }
            return n;
        }
    }

    @ParameterizedTest
    @CsvSource({"false,LIVE", "false,DOWN", "false,MUTE", "true,LIVE", "true,DOWN", "true,MUTE"})
    @DisplayName("voters {0,1,2}: 1 dead, learner 6 added, replace 1 by 6 refused, coordinator 0 killed and restarted: 0 and 2 form a ring")
    void theLiveVotersReform(boolean crossRingStamps, String learner) {
        Cluster c = new Cluster(config(), crossRingStamps);
        c.run(1000, 5, "a");
        String before = c.state();
        assertThat(c.core(COORDINATOR).isCoordinator()).as(before).isTrue();
        c.down(DEAD, true);
        c.run(3000, 5, "c");
        if (learner.equals("DOWN")) {
            c.down(LEARNER, true);
        } else if (learner.equals("MUTE")) {
            c.mute(LEARNER);
        }
        assertThat(c.change(COORDINATOR, MembershipChange.addLearner(LEARNER, "h6:1", ALPHA))).as(c.state()).isNull();
        c.run(2000, 5, "d");
        String refusal = c.change(COORDINATOR, MembershipChange.replace(DEAD, LEARNER, "", ALPHA));
        c.down(COORDINATOR, true);
        c.run(3000, 5, "e");
        c.crashAndRestart(COORDINATOR);
        c.down(COORDINATOR, false);
        c.run(20_000, 5, "f");
        String state = "refusal " + refusal + " before " + before + "\nafter " + c.state();
        assertThat(c.core(SURVIVOR).isCoordinator() || c.core(COORDINATOR).isCoordinator()).as(state).isTrue();
        assertThat(c.texts(SURVIVOR, "f-")).as(state).isGreaterThan(100);
    }
}
