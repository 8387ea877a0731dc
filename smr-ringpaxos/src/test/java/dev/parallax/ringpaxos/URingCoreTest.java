package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.core.testkit.ScriptedCluster.Envelope;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.parallax.ringpaxos.RingCluster.MS;
import static dev.parallax.ringpaxos.RingCluster.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * U-Ring over the scripted cluster, one rule each (docs/protocols/ring-paxos.md; seed 003 (Ring Paxos)
 * §3.3.3, Alg. 3).
 */
class URingCoreTest {

    private static RingConfig config(int n) {
        return RingCluster.uRing(n);
    }

    /** Delivers everything, recording each UPacket link that carried a body of {@code vid}. */
    private static List<String> deliverTracking(RingCluster c, String body) {
        List<String> links = new ArrayList<>();
        int guard = 0;
        while (c.pending() > 0 && guard++ < 10_000) {
            Envelope<RingWire> e = c.queued().get(0);
            if (e.message() instanceof UPacket p) {
                for (Phase2Entry x : p.phase2()) {
                    if (RingCluster.text(x.value()).equals(body)) {
                        links.add(e.from() + "->" + e.to() + " 2A");
                    }
                }
                for (DecisionEntry d : p.decisions()) {
                    if (d.value() != null && RingCluster.text(d.value()).equals(body)) {
                        links.add(e.from() + "->" + e.to() + " decision");
                    }
                }
                for (ProposalEntry x : p.proposals()) {
                    if (RingCluster.text(x.value()).equals(body)) {
                        links.add(e.from() + "->" + e.to() + " proposal");
                    }
                }
            }
            c.deliverNext();
        }
        return links;
    }

    @Test
    @DisplayName("§3.3.1: before a member has adopted any round it names no coordinator (leader hint -1), and names round 0's "
            + "coordinator once it has")
    void noCoordinatorIsNamedBeforeTheFirstRound() {
        RingCluster c = new RingCluster(config(3));
        for (int i = 0; i < 3; i++) {
            assertThat(c.core(i).round()).isEqualTo(-1);
            assertThat(c.core(i).coordinator()).as("member %d before any round", i).isEqualTo(-1);
        }
        c.start();
        for (int i = 0; i < 3; i++) {
            assertThat(c.core(i).round()).isGreaterThanOrEqualTo(0);
            assertThat(c.core(i).coordinator()).isZero();
        }
    }

    @Test
    @DisplayName("U1 (Alg. 3 l.2–8): a proposal rides the ring from its proposer to the coordinator")
    void proposalRidesToTheCoordinator() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        assertThat(c.propose(1, batch("a"))).isTrue();
        assertThat(c.queued()).hasSize(1);
        assertThat(c.queued().get(0).to()).isEqualTo(2);
        assertThat(((UPacket) c.queued().get(0).message()).proposals()).hasSize(1);
        c.deliverNext();
        assertThat(c.queued().get(0).from()).isEqualTo(2);
        assertThat(c.queued().get(0).to()).isEqualTo(0);
        assertThat(((UPacket) c.queued().get(0).message()).proposals()).hasSize(1);
        c.deliverAll(100);
        for (int i = 0; i < 3; i++) {
            assertThat(c.texts(i)).containsExactly("a");
        }
    }

    @Test
    @DisplayName("U1 (§3.5.2): received proposals are piggy-backed on the packet that forwards decisions")
    void proposalsArePiggyBacked() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        c.propose(0, batch("x"));
        c.deliverAll(100);
        Ring ring = c.core(2).ring();
        EffectBuffer<RingWire, RingRecord, RingValue> out = new EffectBuffer<>();
        ProposalEntry p = new ProposalEntry(new ValueId(1, 0, 9), ByteBuffer.wrap(new byte[]{1}));
        c.core(2).onMessage(1, new UPacket(0, ring, List.of(),
                List.of(new DecisionEntry(7, new ValueId(1, 0, 8), ByteBuffer.wrap(new byte[]{2}))), List.of(p)), c.now(), out);
        assertThat(out.sends()).hasSize(1);
        UPacket sent = (UPacket) out.sends().get(0).message();
        assertThat(out.sends().get(0).to()).isEqualTo(0);
        assertThat(sent.decisions()).extracting(DecisionEntry::instance).containsExactly(7L);
        assertThat(sent.proposals()).containsExactly(p);
    }

    @Test
    @DisplayName("U2/U3 (Alg. 3 l.21–32): positions 0..f vote in ring order, the last acceptor decides first")
    void positionsVoteInOrderAndTheLastAcceptorDecides() {
        List<String> events = new ArrayList<>();
        RingCluster c = new RingCluster(config(5), id -> new RingPaxosCore.Observer() {
            @Override
            public void voted(long instance, long round, ValueId vid) {
                events.add(id + " voted " + instance);
            }

            @Override
            public void decided(long instance, ValueId vid, ByteBuffer valueOrNull) {
                events.add(id + " decided " + instance);
            }
        });
        c.start();
        assertThat(c.core(0).ring().order()).containsExactly(0, 1, 2, 3, 4);
        c.propose(0, batch("v"));
        c.deliverAll(100);
        assertThat(events).containsExactly("0 voted 0", "1 voted 0", "2 voted 0", "2 decided 0", "3 decided 0",
                "4 decided 0", "0 decided 0", "1 decided 0");
    }

    @Test
    @DisplayName("§3.3.5 (second way): a vote is persisted with sync in the step that forwards it, before the send")
    void voteIsSyncedBeforeTheForward() {
        RingCluster c = new RingCluster(config(5));
        c.start();
        c.trace().clear();
        c.propose(0, batch("v"));
        c.deliverNext(); // 0 -> 1: the 2A
        List<String> step = c.trace().subList(c.trace().size() - 2, c.trace().size());
        assertThat(step.get(0)).contains("1 persist VoteRecord").endsWith("(sync)");
        assertThat(step.get(1)).contains("1 send ->2 UPacket");
        assertThat(c.log(1).nextIndex()).isGreaterThan(0);
    }

    @Test
    @DisplayName("U4 (Alg. 3 l.35–41), n=3: the value crosses n−1 links; the decision stops at pred(last acceptor)")
    void valueCrossesNMinusOneLinksAtThree() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        c.propose(0, batch("from0"));
        assertThat(deliverTracking(c, "from0")).containsExactly("0->1 2A", "1->2 decision");
        c.propose(1, batch("from1"));
        assertThat(deliverTracking(c, "from1")).containsExactly("1->2 proposal", "2->0 proposal", "0->1 2A");
        c.propose(2, batch("from2"));
        assertThat(deliverTracking(c, "from2")).containsExactly("2->0 proposal", "0->1 2A");
        for (int i = 0; i < 3; i++) {
            assertThat(c.texts(i)).containsExactly("from0", "from1", "from2");
        }
        // Nothing goes to the last acceptor (1) after it decided: the last decision packet is 0 -> ... never 0->1 decisions.
        assertThat(c.trace()).noneMatch(l -> l.contains("0 send ->1 UPacket") && l.contains("decisions=[DecisionEntry"));
    }

    @Test
    @DisplayName("U4 (Alg. 3 l.35–41), n=5: value until pred(P(v)), id-only after; n−1 links")
    void valueUntilPredecessorOfProposerAtFive() {
        RingCluster c = new RingCluster(config(5));
        c.start();
        c.propose(3, batch("p3"));
        assertThat(deliverTracking(c, "p3")).containsExactly("3->4 proposal", "4->0 proposal", "0->1 2A", "1->2 2A");
        c.propose(0, batch("p0"));
        assertThat(deliverTracking(c, "p0")).containsExactly("0->1 2A", "1->2 2A", "2->3 decision", "3->4 decision");
        for (int i = 0; i < 5; i++) {
            assertThat(c.texts(i)).containsExactly("p3", "p0");
        }
    }

    @Test
    @DisplayName("U4 for a re-proposed value (never went around the new ring) and re-formation: a coordinator crash "
            + "re-forms the ring")
    void reproposedValueAfterCoordinatorCrash() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        c.propose(0, batch("x"));
        c.deliverNext();            // 0 -> 1 2A: 1 votes and decides; its decision to 2 is lost
        c.dropAll();
        c.isolate(0);
        c.settle(100, 12);          // 1 suspects 0 (rank 0) and starts round 1
        assertThat(c.core(1).round()).isEqualTo(1);
        assertThat(c.core(1).isCoordinator()).isTrue();
        assertThat(c.core(1).ring().order()).containsExactly(1, 2);
        assertThat(c.texts(1)).containsExactly("x");
        assertThat(c.texts(2)).containsExactly("x");
        c.propose(2, batch("y"));
        c.deliverAll(100);
        assertThat(c.texts(1)).containsExactly("x", "y");
        assertThat(c.texts(2)).containsExactly("x", "y");
    }

    @Test
    @DisplayName("C1 (§3.3.3 ¶3): one Phase 1 covers every later instance of the round")
    void phaseOneAheadForAllInstances() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        for (String s : List.of("a", "b", "c", "d")) {
            c.propose(1, batch(s));
            c.deliverAll(100);
        }
        assertThat(c.trace().stream().filter(l -> l.contains("Phase1A"))).hasSize(2);
        assertThat(c.texts(2)).containsExactly("a", "b", "c", "d");
    }

    @Test
    @DisplayName("C3 / §3.3.6 (b): at most ring.window open; no instance at or beyond min delivered + ring.max.backlog")
    void windowAndBacklogBounds() {
        RingCluster c = new RingCluster(RingConfig.builder(3, Ring.Kind.U_RING).window(2).maxPending(10).build());
        c.start();
        for (int i = 0; i < 5; i++) {
            c.propose(0, batch("w" + i));
        }
        assertThat(c.core(0).outstanding()).isEqualTo(2);
        c.deliverAll(1000);
        assertThat(c.texts(2)).hasSize(5);

        RingCluster b = new RingCluster(RingConfig.builder(3, Ring.Kind.U_RING).maxBacklog(3).maxPending(10).build());
        b.start();
        for (int i = 0; i < 5; i++) {
            b.propose(0, batch("b" + i));
        }
        b.deliverAll(1000);
        assertThat(b.texts(1)).hasSize(3);
        for (int i = 0; i < 3; i++) {
            b.delivered(i, 3);
        }
        b.settle(50, 2);             // Alive reports delivered = 3; the coordinator opens the rest
        assertThat(b.texts(1)).hasSize(5);
    }

    @Test
    @DisplayName("U6: an open entry lost on the ring is re-sent after ring.retransmit; duplicates change nothing")
    void lostPacketIsRetransmitted() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        c.propose(0, batch("r"));
        c.dropNext();               // the 2A to 1 is lost
        c.settle(50, 1);
        assertThat(c.texts(0)).isEmpty();
        c.settle(60, 1);             // 110 ms > ring.retransmit (100 ms)
        assertThat(c.texts(0)).containsExactly("r");
        assertThat(c.texts(2)).containsExactly("r");
        c.settle(200, 2);
        assertThat(c.texts(1)).containsExactly("r");
        long[] retransmits = new long[1];
        c.core(0).reportEvents((name, n) -> {
            if (name.equals("retransmits")) {
                retransmits[0] = n;
            }
        });
        assertThat(retransmits[0]).isEqualTo(1);
    }

    @Test
    @DisplayName("C9 (§3.3.7): compact(p) trims at min(p, version floor) — what f+1 learners applied")
    void compactAtMinOfPAndFloor() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        for (String s : List.of("a", "b", "c", "d")) {
            c.propose(0, batch(s));
            c.deliverAll(100);
        }
        c.delivered(0, 4);
        c.delivered(1, 2);
        c.delivered(2, 1);
        c.settle(50, 2);
        assertThat(c.core(0).versionFloor()).isEqualTo(2);
        c.trace().clear();
        c.compact(0, 4);
        assertThat(c.trace()).anyMatch(l -> l.contains("0 persist Trim[instance=2] (sync)"));
        assertThat(c.trace()).anyMatch(l -> l.contains("0 persist Decision[instance=3"));
    }

    @Test
    @DisplayName("C6: a member below a peer's trim point is told to install a snapshot")
    void snapshotNeededBelowATrim() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        c.isolate(2);
        c.settle(100, 7);            // 2 is excluded; ring [0, 1]
        assertThat(c.core(0).ring().contains(2)).isFalse();
        for (String s : List.of("a", "b", "c")) {
            c.propose(0, batch(s));
            c.deliverAll(100);
        }
        c.delivered(0, 3);
        c.delivered(1, 3);
        c.settle(50, 2);
        c.compact(0, 3);
        c.compact(1, 3);
        c.heal();
        c.settle(60, 5);
        assertThat(c.trace()).anyMatch(l -> l.contains("2 snapshot-needed from") && l.endsWith("below 3"));
    }

    @Test
    @DisplayName("C8/re-formation trigger 1: a suspected ring member is excluded and the ring re-formed without it")
    void memberCrashReformsTheRing() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        c.isolate(2);
        c.settle(100, 7);
        assertThat(c.core(0).reformations()).isEqualTo(1);
        assertThat(c.core(0).ring().order()).containsExactly(0, 1);
        c.propose(1, batch("m"));
        c.deliverAll(100);
        assertThat(c.texts(0)).containsExactly("m");
        assertThat(c.texts(1)).containsExactly("m");
    }

    @Test
    @DisplayName("C8 stickiness: a member that cannot hear the coordinator does not depose it")
    void stickiness() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        c.cutLink(0, 2);            // 2 no longer hears 0; 0 and 1 are fine
        c.settle(100, 10);
        assertThat(c.core(0).isCoordinator()).isTrue();
        assertThat(c.core(1).round()).isEqualTo(c.core(0).round());
        long[] refused = new long[1];
        c.core(1).reportEvents((name, n) -> {
            if (name.equals("phase1a.refused.sticky")) {
                refused[0] += n;
            }
        });
        c.core(0).reportEvents((name, n) -> {
            if (name.equals("phase1a.refused.sticky")) {
                refused[0] += n;
            }
        });
        assertThat(refused[0]).isPositive();
        c.propose(1, batch("s"));
        c.settle(10, 3);
        assertThat(c.texts(0)).containsExactly("s");
    }

    @Test
    @DisplayName("C8 check-quorum: a coordinator that hears fewer than f others within suspect steps down")
    void checkQuorum() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        c.isolate(0);
        c.settle(100, 7);
        assertThat(c.core(0).stepDowns()).isEqualTo(1);
        assertThat(c.core(0).isCoordinator()).isFalse();
    }

    @Test
    @DisplayName("re-formation trigger 2: a one-way cut stalls the ring; the first lagging member is excluded")
    void oneWayCutStallExclusion() {
        // Catch-up slowed down so that it does not repair the cut ring before the stall time-out.
        RingCluster c = new RingCluster(RingConfig.builder(3, Ring.Kind.U_RING).catchUp(Duration.ofSeconds(5)).build());
        c.start();
        c.cutLink(1, 2);            // decisions from 1 never reach 2 (nor 0 through it)
        c.propose(0, batch("k"));
        c.deliverAll(100);
        assertThat(c.texts(0)).isEmpty();
        c.settle(100, 12);
        assertThat(c.core(0).ring().contains(2)).isFalse();
        assertThat(c.texts(0)).containsExactly("k");
        assertThat(c.texts(1)).containsExactly("k");
    }

    @Test
    @DisplayName("re-formation trigger 3: an excluded member asks back (Alive wantsRing) and rejoins after its back-off")
    void rejoinAfterBackoff() {
        RingCluster c = new RingCluster(RingConfig.builder(3, Ring.Kind.U_RING).rejoinBackoff(Duration.ofMillis(1500)).build());
        c.start();
        c.isolate(2);
        c.settle(100, 7);
        assertThat(c.core(0).ring().contains(2)).isFalse();
        c.heal();
        c.settle(100, 8);            // within the back-off: still off the ring, learning by heartbeat + catch-up
        assertThat(c.core(0).ring().contains(2)).isFalse();
        c.settle(100, 10);
        assertThat(c.core(0).ring().order()).containsExactly(0, 1, 2);
        c.propose(2, batch("back"));
        c.deliverAll(100);
        assertThat(c.texts(0)).containsExactly("back");
        assertThat(c.texts(2)).containsExactly("back");
    }

    @Test
    @DisplayName("C8 no round reuse: a restarted coordinator never sends in a round it led before")
    void noRoundReuse() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        c.propose(0, batch("a"));
        c.deliverAll(100);
        c.crashAndRestart(0);
        c.trace().clear();
        c.settle(100, 15);
        assertThat(c.trace()).noneMatch(l -> l.contains(" 0 send") && !l.contains("CatchUp") && l.contains("round=0,"));
        assertThat(c.core(1).isCoordinator()).isTrue();
        assertThat(c.core(0).round()).isEqualTo(c.core(1).round());
        assertThat(c.core(1).round() % 3).isEqualTo(1);
        c.propose(0, batch("b"));
        c.settle(10, 5);
        assertThat(c.texts(1)).containsExactly("a", "b");
        assertThat(c.core(1).round()).isPositive();
    }

    @Test
    @DisplayName("C8 runtime detection: ticks no longer suspect; onSuspectMember of the watched coordinator starts the next round, a stale epoch is ignored")
    void externalFailureDetection() {
        RingCluster c = new RingCluster(config(3));
        for (int i = 0; i < 3; i++) {
            c.core(i).detectFailuresExternally();
        }
        c.start();
        assertThat(c.core(1).watchedEpoch()).isZero();
        assertThat(c.core(1).watchedMask()).isEqualTo(1L);
        assertThat(c.core(0).watchedMask()).isEqualTo(0b110L);
        c.isolate(0);
        c.settle(100, 10);
        assertThat(c.core(1).round()).isZero();
        c.suspectMember(1, 0, 5);   // a stale (other) epoch
        c.deliverAll(100);
        assertThat(c.core(1).round()).isZero();
        c.suspectMember(1, 0, 0);
        c.deliverAll(100);
        assertThat(c.core(1).round()).isEqualTo(1);
        assertThat(c.core(1).isCoordinator()).isTrue();
        assertThat(c.core(1).watchedMask()).isEqualTo(0b100L);
        assertThat(c.core(2).watchedMask()).isEqualTo(0b010L);
    }

    @Test
    @DisplayName("C1 paging (as Multi-Paxos): an acceptor answers one page of votes, the new coordinator asks for the rest and re-proposes all")
    void pagedPhaseOne() {
        RingCluster c = new RingCluster(RingConfig.builder(5, Ring.Kind.U_RING).window(5).catchUpMaxInstances(2).build());
        c.start();
        c.isolate(4);
        c.settle(100, 7);           // 0 excludes 4: ring [0, 1, 2, 3]
        assertThat(c.core(0).ring().order()).containsExactly(0, 1, 2, 3);
        for (int i = 0; i < 5; i++) {
            c.core(i).detectFailuresExternally();
        }
        for (String s : List.of("a", "b", "c", "d", "e")) {
            c.propose(0, batch(s));
        }
        for (int i = 0; i < 5; i++) {
            c.deliverNext();        // 0 -> 1: five 2As; 1 votes for all of them
        }
        c.dropAll();                // 1's forwards to 2 are lost
        c.isolate(0);
        c.tick(600 * MS);           // 0 is no longer live for anybody
        c.dropAll();
        c.trace().clear();
        c.suspectMember(2, 0, c.core(2).round());   // 2 starts its round; only 1 and 3 can answer
        c.deliverAll(1000);
        assertThat(c.trace()).anyMatch(l -> l.contains("1 send ->2 Phase1B[round=") && l.endsWith("continueFrom=2]"));
        assertThat(c.trace()).anyMatch(l -> l.contains("2 send ->1 Phase1A[round=") && l.endsWith("from=4]"));
        assertThat(c.core(2).isCoordinator()).isTrue();
        assertThat(c.core(2).ring().order()).containsExactly(2, 3, 1);
        for (int i = 1; i < 4; i++) {
            assertThat(c.texts(i)).as("member %d", i).containsExactly("a", "b", "c", "d", "e");
        }
    }

    @Test
    @DisplayName("n = 1 (f = 0): the coordinator is the only acceptor and decides at once")
    void singleMember() {
        RingCluster c = new RingCluster(config(1));
        c.start();
        assertThat(c.core(0).isCoordinator()).isTrue();
        c.propose(0, batch("solo"));
        c.deliverAll(10);
        assertThat(c.texts(0)).containsExactly("solo");
        c.crashAndRestart(0);
        c.settle(1, 1);
        assertThat(c.core(0).round()).isEqualTo(1);
        c.propose(0, batch("again"));
        c.deliverAll(10);
        assertThat(c.texts(0)).containsExactly("solo", "again");
    }

    @Test
    @DisplayName("C8 restart hold: a restarted member starts no round before it hears a peer or ring.restart.hold passes")
    void restartHold() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        c.propose(0, batch("a"));
        c.deliverAll(100);
        c.isolate(0);
        c.isolate(2);
        c.crashAndRestart(1);       // 1 restarts alone: it hears nobody
        c.trace().clear();
        c.settle(100, 15);          // 1.5 s: beyond its ranked time-out, within the 2 s hold
        assertThat(c.trace()).noneMatch(l -> l.contains("1 send ->") && l.contains("Phase1A"));
        c.settle(100, 7);           // the hold ends
        assertThat(c.trace()).anyMatch(l -> l.contains("1 send ->") && l.contains("Phase1A"));
    }

    @Test
    @DisplayName("§3.3.7 versions: the coordinator's floor (f+1-th highest delivered) reaches the members by Heartbeat")
    void versionFloorReachesMembers() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        for (String s : List.of("a", "b", "c")) {
            c.propose(1, batch(s));
            c.deliverAll(100);
        }
        c.delivered(0, 3);
        c.delivered(1, 3);
        c.delivered(2, 1);
        c.settle(50, 3);
        assertThat(c.core(0).versionFloor()).isEqualTo(3);
        assertThat(c.core(1).versionFloor()).isEqualTo(3);
        assertThat(c.core(2).versionFloor()).isEqualTo(3);
        assertThat(c.core(2).delivered()).isEqualTo(1);
    }

    @Test
    @DisplayName("canPropose: the coordinator below ring.eager.below open, the others below that many own pending")
    void canProposeHint() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        assertThat(c.core(0).canPropose()).isTrue();
        assertThat(c.core(1).canPropose()).isTrue();
        c.propose(0, batch("a"));
        c.propose(0, batch("b"));
        assertThat(c.core(0).outstanding()).isEqualTo(2);
        assertThat(c.core(0).canPropose()).isFalse();
        c.propose(1, batch("c"));
        c.propose(1, batch("d"));
        assertThat(c.core(1).outstanding()).isEqualTo(2);
        assertThat(c.core(1).canPropose()).isFalse();
        c.deliverAll(100);
        assertThat(c.core(0).canPropose()).isTrue();
        assertThat(c.core(1).canPropose()).isTrue();
        assertThat(c.core(1).coordinator()).isZero();
    }

    @Test
    @DisplayName("C1/C8: a refused candidate stays in the working round (keeps learning), gives Phase 1 up after suspect and says so")
    void refusedCandidateStaysInTheWorkingRound() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        c.cutLink(0, 2);            // 2 no longer hears the coordinator; 1 still does
        c.settle(100, 9);           // 2 suspects 0 (ranked: 750 ms) and starts round 2; 0 and 1 refuse
        assertThat(c.trace()).anyMatch(l -> l.contains("2 persist Promise[round=2] (sync)"));
        assertThat(c.core(2).round()).isZero();
        c.propose(1, batch("during"));
        c.deliverAll(100);
        assertThat(c.texts(2)).containsExactly("during");
        c.settle(100, 6);           // its Phase 1 times out
        assertThat(event(c.core(2), "phase1.abandoned")).isPositive();
        assertThat(c.trace()).anyMatch(l -> l.contains("2 send ->1 StepDown[round=2]"));
        assertThat(c.core(0).isCoordinator()).isTrue();
        assertThat(c.core(1).round()).isZero();
    }

    @Test
    @DisplayName("re-formation, stranded member: one that promised a round whose candidate gave up reports to the "
            + "coordinator it hears, which re-forms above it")
    void strandedMemberIsBroughtBack() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        c.cutLink(0, 2);
        c.settle(100, 4);           // 2 has not heard the coordinator for 3/4 suspect: no longer sticky
        EffectBuffer<RingWire, RingRecord, RingValue> out = new EffectBuffer<>();
        c.core(2).onMessage(1, new RingMessage.Phase1A(1, 0), c.now(), out);   // 1's candidacy reaches 2 only
        c.core(2).onMessage(1, new RingMessage.StepDown(1), c.now(), out);     // and is given up
        assertThat(c.core(2).round()).isEqualTo(1);
        c.heal();
        c.settle(100, 15);
        assertThat(c.core(0).isCoordinator()).isTrue();
        assertThat(c.core(0).round()).isGreaterThan(1);
        assertThat(c.core(2).round()).isEqualTo(c.core(0).round());
        assertThat(event(c.core(0), "rejoins")).isPositive();
        c.propose(2, batch("back"));
        c.deliverAll(100);
        assertThat(c.texts(0)).containsExactly("back");
    }

    @Test
    @DisplayName("C6 (B8): a learner whose first instance is decided id-only, below every peer's trim, asks for a snapshot")
    void idOnlyFirstInstanceBelowTheTrimAsksForASnapshot() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        EffectBuffer<RingWire, RingRecord, RingValue> out = new EffectBuffer<>();
        RingEngine e = c.core(2).engine();
        e.learn(e.firstUndecided(), new ValueId(77, 0, 1), null, out);    // the decision, not its body
        assertThat(e.isDecided(e.firstUndecided())).isTrue();
        out.clear();
        c.core(2).onMessage(1, new RingMessage.CatchUpReply(0, 9, List.of(), List.of()), c.now(), out);
        assertThat(out.snapshotRequests()).containsExactly(new EffectBuffer.SnapshotRequest(1, 9));
    }

    @Test
    @DisplayName("C10 (B3): after a restart with a recovery Trim the learner is not trimmed; installing a snapshot (skipTo) trims it")
    void recoveryTrimThenSnapshot() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        EffectBuffer<RingWire, RingRecord, RingValue> out = new EffectBuffer<>();
        RingPaxosCore fresh = new RingPaxosCore(config(3), 2, List.of(new RingRecord.Trim(30)), false, c.now(), c.now(),
                RingPaxosCore.Observer.NONE);
        assertThat(fresh.engine().learner().trimmedBelow()).isZero();
        fresh.onMessage(1, new RingMessage.CatchUpReply(0, 0,
                List.of(new DecisionEntry(0, new ValueId(1, 0, 1), ByteBuffer.wrap(new byte[]{7}))), List.of()), c.now(), out);
        assertThat(fresh.firstUndecided()).isEqualTo(1);
        fresh.skipTo(40);
        assertThat(fresh.engine().learner().trimmedBelow()).isEqualTo(40);
        assertThat(fresh.firstUndecided()).isEqualTo(40);
    }

    @Test
    @DisplayName("C1/C8 (E1): a first candidate whose Phase 1A reached nobody (members started later) tries again after the ranked time-out; a ring forms")
    void firstPhaseOneLostThenARingForms() {
        for (boolean external : new boolean[]{false, true}) {
            RingCluster c = new RingCluster(config(3));
            if (external) {
                for (int m = 0; m < 3; m++) {
                    c.core(m).detectFailuresExternally();
                }
            }
            c.tick(MS);
            for (int t = 0; t < 7; t++) {   // member 0's Phase 1A and its re-sends: the others are not up yet
                c.dropAll();
                c.tick(100 * MS);
            }
            c.dropAll();
            c.settle(100, 30);
            int leader = c.core(0).coordinator();
            assertThat(c.core(leader).isCoordinator()).as("external=%s", external).isTrue();
            assertThat(c.core(1).round()).isEqualTo(c.core(0).round()).isEqualTo(c.core(2).round());
            c.propose(2, batch("late"));
            c.deliverAll(100);
            assertThat(c.texts(1)).containsExactly("late");
        }
    }

    @Test
    @DisplayName("re-formation/C2 (E2): a member whose first undecided lies more than ring.rejoin.lag below the known "
            + "decisions is not laid out as an acceptor; it catches up from the heartbeats")
    void farBehindMemberIsNotLaidOut() {
        RingCluster c = new RingCluster(RingConfig.builder(5, Ring.Kind.U_RING).rejoinLag(2).rejoinBackoff(Duration.ofMillis(100)).build());
        c.start();
        c.isolate(4);
        c.settle(100, 8);                       // 4 excluded; ring [0, 1, 2, 3]
        assertThat(c.core(0).ring().contains(4)).isFalse();
        for (String s : List.of("a", "b", "c", "d", "e")) {
            c.propose(1, batch(s));
            c.deliverAll(1000);
        }
        assertThat(c.texts(0)).hasSize(5);
        c.heal();
        c.isolate(3);                           // 3 fails; 4 is back but hears nothing that would teach it
        for (int t = 0; t < 10; t++) {
            c.tick(100 * MS);
            for (int g = 0; g < 10_000 && c.pending() > 0; g++) {
                Envelope<RingWire> e = c.queued().get(0);
                boolean teaches = e.to() == 4 && (e.message() instanceof RingMessage.Heartbeat
                        || e.message() instanceof RingMessage.CatchUpReply || e.message() instanceof UPacket);
                if (teaches) {
                    c.dropNext();
                } else {
                    c.deliverNext();
                }
            }
        }
        assertThat(c.core(4).firstUndecided()).isZero();
        assertThat(c.trace()).anyMatch(l -> l.contains("4 send ->0 Phase1B"));
        assertThat(c.core(0).isCoordinator()).isTrue();
        assertThat(c.core(0).ring().contains(3)).isFalse();
        assertThat(c.core(0).ring().contains(4)).as("ring %s", c.core(0).ring()).isFalse();
        assertThat(event(c.core(0), "layout.lagging.left.out")).isPositive();
        c.settle(100, 5);                       // now 4 hears the heartbeats and catches up (C6)
        assertThat(c.texts(4)).containsExactly("a", "b", "c", "d", "e");
    }

    @Test
    @DisplayName("C6 (B7): a learner asks for catch-up only once the gap has persisted one ring.catchup period")
    void catchUpOnlyForAPersistentGap() {
        RingCluster c = new RingCluster(config(3));
        c.start();
        RingEngine e = c.core(2).engine();
        long first = e.firstUndecided();
        e.learn(first + 3, new ValueId(1, 0, 99), ByteBuffer.wrap(new byte[]{9}), new EffectBuffer<>());
        c.trace().clear();
        c.tick(20 * MS);
        c.tick(20 * MS);
        assertThat(c.trace()).noneMatch(l -> l.contains("2 send") && l.contains("CatchUpQuery"));
        c.tick(100 * MS);
        assertThat(c.trace()).anyMatch(l -> l.contains("2 send") && l.contains("CatchUpQuery[round=0, from=" + first));
    }

    private static long event(RingPaxosCore core, String name) {
        long[] n = new long[1];
        core.reportEvents((k, v) -> {
            if (k.equals(name)) {
                n[0] = v;
            }
        });
        return n[0];
    }
}
