package dev.parallax.ringpaxos;

import dev.parallax.core.testkit.ScriptedCluster.Envelope;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.function.Predicate;

import static dev.parallax.ringpaxos.RingCluster.MS;
import static dev.parallax.ringpaxos.RingCluster.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rings that always form and never park (rule C8; seed 003 (Ring Paxos) §3.3.5: "a failed
 * coordinator is detected by the other processes, which select a new coordinator", and "a
 * coordinator that suspects the failure of one or more acceptors may simply try to contact all the
 * acceptors in order to gather an m-quorum"), over the scripted cluster with the replicas' setting:
 * failure detection handed to the runtime ({@code detectFailuresExternally}), whose member detector
 * watches no epoch before the first round ({@code MemberDetector} and {@code ProtocolStage} ignore a
 * negative one), so a script that never calls {@code suspectMember} for a negative epoch is what a
 * replica sees.
 */
class RingFormationTest {

    private static RingCluster external(RingConfig config) {
        RingCluster c = new RingCluster(config);
        for (int i = 0; i < config.members(); i++) {
            c.core(i).detectFailuresExternally();
        }
        return c;
    }

    /** Delivers everything queued, losing what matches {@code lose} (bounded). */
    private static void deliverLosing(RingCluster c, Predicate<Envelope<RingWire>> lose) {
        for (int i = 0; i < 100_000 && c.pending() > 0; i++) {
            if (lose.test(c.queued().get(0))) {
                c.dropNext();
            } else {
                c.deliverNext();
            }
        }
    }

    /** The member of {@code from..n-1} that leads, or -1. */
    private static int leader(RingCluster c, int from) {
        for (int i = from; i < c.members(); i++) {
            if (c.core(i).isCoordinator()) {
                return i;
            }
        }
        return -1;
    }

    @ParameterizedTest(name = "{0} n={1}")
    @CsvSource({"U_RING, 3", "M_RING, 3", "U_RING, 6", "M_RING, 6"})
    @DisplayName("cold start with member 0 never up: another member forms a ring and decides (C8; §3.3.5: the other processes select a new coordinator)")
    void coldStartWithoutMemberZero(Ring.Kind kind, int n) {
        RingConfig config = RingConfig.builder(n, kind).build();
        RingCluster c = external(config);
        c.isolate(0);   // never started: nothing it would send arrives, nothing reaches it
        long deadline = 10 * config.suspectNanos();
        while (c.now() < deadline && leader(c, 1) < 0) {
            c.settle(10, 1);
        }
        int leader = leader(c, 1);
        assertThat(leader).as("a member other than 0 leads within 10 suspect time-outs; rounds %s",
                java.util.stream.IntStream.range(1, n).mapToObj(i -> c.core(i).round()).toList()).isPositive();
        c.propose(n - 1, batch("a"));
        c.settle(10, 20);
        for (int i = 1; i < n; i++) {
            assertThat(c.texts(i)).as("member %d", i).containsExactly("a");
        }
    }

    /**
     * Drives member 0, the coordinator of round 0, into two stall re-formations and a step-down: every
     * ring packet is lost, so nothing it opens is decided (and every StepDown too if {@code loseStepDowns}).
     */
    private static void stallUntilStepDown(RingCluster c, boolean loseStepDowns) {
        c.propose(0, batch("a"));
        for (int i = 0; i < 2_000 && c.core(0).stepDowns() == 0; i++) {
            c.tick(10 * MS);
            deliverLosing(c, e -> e.message() instanceof UPacket || e.message() instanceof MPacket
                    || (loseStepDowns && e.message() instanceof RingMessage.StepDown));
        }
        assertThat(c.core(0).stepDowns()).as("0 stepped down after re-forming twice without progress").isPositive();
        assertThat(c.core(0).reformations()).isGreaterThanOrEqualTo(2);
    }

    @Test
    @DisplayName("a member that stepped down after two re-formations without progress, re-elected on an idle ring, decides a skip within one skip interval (C8 check-quorum counts per leadership)")
    void reElectedCoordinatorDecidesASkip() {
        long deltaMs = 20;
        RingConfig config = RingConfig.builder(3, Ring.Kind.U_RING).lambda(1000)
                .skipInterval(Duration.ofMillis(deltaMs)).build();
        RingCluster c = external(config);
        c.start();
        assertThat(c.core(0).isCoordinator()).isTrue();
        stallUntilStepDown(c, false);
        // The network heals: 1 (rank 0 after 0, told by the StepDown) takes over and decides everything.
        for (int i = 0; i < 300 && leader(c, 1) != 1; i++) {
            c.settle(10, 1);
        }
        assertThat(leader(c, 1)).as("member 1 took over").isEqualTo(1);
        c.settle(10, 50);
        assertThat(c.texts(0)).containsExactly("a");
        assertThat(c.core(0).firstUndecided()).isEqualTo(c.core(1).firstUndecided());
        // 1 fails; once 2 no longer holds to it (stickiness) and 0's exclusions have expired, 0's
        // detector suspects it: 0 is elected again, on a ring with nothing waiting.
        c.isolate(1);
        c.settle(10, 300);
        c.suspectMember(0, 1, c.core(0).watchedEpoch());
        c.deliverAll(10_000);
        assertThat(c.core(0).isCoordinator()).as("0 leads again").isTrue();
        long elected = c.now();
        int before = c.delivered(0).size();
        while (c.now() - elected <= deltaMs * MS && c.delivered(0).size() == before) {
            c.settle(1, 1);
        }
        assertThat(c.delivered(0).subList(before, c.delivered(0).size()))
                .as("a skip decided within one skip interval of the re-election; 0 %s, step-downs %d",
                        c.core(0).isCoordinator() ? "leads" : "stepped down", c.core(0).stepDowns())
                .anySatisfy(v -> assertThat(((RingValue.Chosen) v).vid().isSkip()).isTrue());
        assertThat(c.core(0).isCoordinator()).isTrue();
    }

    @ParameterizedTest(name = "{0}, step-downs lost: {1}")
    @CsvSource({"U_RING, false", "M_RING, false", "U_RING, true", "M_RING, true"})
    @DisplayName("two exclusions in a 3-member ring: a ring forms again within 3 suspect time-outs, not after the exclusions' back-off, also when every StepDown is lost (§3.3.5: contact all the acceptors to gather an m-quorum)")
    void twoExclusionsInThreeMembers(Ring.Kind kind, boolean loseStepDowns) {
        // A back-off far longer than the bound: a ring that waits for it is caught.
        RingConfig config = RingConfig.builder(3, kind).rejoinBackoff(Duration.ofSeconds(10)).build();
        RingCluster c = external(config);
        c.start();
        stallUntilStepDown(c, loseStepDowns);
        // Every member is off any ring now or soon; the ring packets flow again and nobody is
        // suspected by the runtime (every member keeps talking): the members alone must form a
        // ring again — without the StepDown too (a transport not yet connected drops it).
        long healed = c.now();
        while (c.now() - healed < 3 * config.suspectNanos() && (leader(c, 0) < 0 || c.texts(2).isEmpty())) {
            c.tick(10 * MS);
            deliverLosing(c, e -> loseStepDowns && e.message() instanceof RingMessage.StepDown);
        }
        assertThat(leader(c, 0)).as("some member leads a ring again; rounds %d %d %d, rings %s %s %s",
                c.core(0).round(), c.core(1).round(), c.core(2).round(),
                c.core(0).ring(), c.core(1).ring(), c.core(2).ring()).isNotNegative();
        for (int i = 0; i < 3; i++) {
            assertThat(c.texts(i)).as("member %d", i).containsExactly("a");
        }
        c.propose(2, batch("b"));
        for (int i = 0; i < 20; i++) {
            c.tick(10 * MS);
            deliverLosing(c, e -> loseStepDowns && e.message() instanceof RingMessage.StepDown);
        }
        for (int i = 0; i < 3; i++) {
            assertThat(c.texts(i)).as("member %d", i).containsExactly("a", "b");
        }
    }
}
