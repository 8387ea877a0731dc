package dev.parallax.paxos.spaxos;

import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.paxos.PaxosMessage;
import dev.parallax.paxos.Value;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.parallax.paxos.spaxos.SPaxosScripted.MS;
import static dev.parallax.paxos.spaxos.SPaxosScripted.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SPaxosCore}, one rule per test (seed 002 (S-Paxos) §IV), on the scripted
 * cluster and, where a rule needs decisions no correct leader makes (an id decided twice, a
 * malformed value), on one core fed by hand.
 */
class SPaxosCoreTest {

    // ---------------------------------------------------------------- scripted cluster

    @Test
    @DisplayName("seed 002 §IV-A, Alg. 1 l.16–18: only the leader proposes, only stable ids, each once; every replica executes every batch once")
    void onlyTheLeaderProposesStableIdsOnce() {
        SPaxosScripted c = SPaxosScripted.of(SPaxosScripted.config(3, 3, 64));
        c.electZero();
        c.propose(1, batch("a"));
        c.propose(2, batch("b"));
        c.propose(0, batch("c"));
        c.run(20);
        List<BatchId> decided = c.decidedIds(0);
        assertThat(decided).hasSize(3).doesNotHaveDuplicates();
        for (int r = 0; r < 3; r++) {
            assertThat(c.executed(r)).as("replica %d", r).containsExactlyElementsOf(decided);
            assertThat(c.deliveredBodies(r)).containsExactlyInAnyOrder("a", "b", "c");
        }
        assertThat(c.trace()).filteredOn(l -> l.contains(" send ->") && l.contains("Propose["))
                .allMatch(l -> l.split(" ")[1].equals("0"));
        // Only stable ids: every id the leader decided was reported stable there first.
        List<SPaxosScripted.Event> atLeader = c.events.stream().filter(e -> e.replica() == 0).toList();
        for (BatchId id : decided) {
            int stableAt = indexOf(atLeader, "stable", id);
            int decidedAt = indexOf(atLeader, "decided", id);
            assertThat(stableAt).as("%s stable before decided", id).isNotNegative().isLessThan(decidedAt);
        }
    }

    @Test
    @DisplayName("seed 002 §IV-A, l.14–18, §IV-B a: with n=5 an id held by 2 replicas is not stable (f+1 = 3) and is not proposed")
    void anIdHeldByTooFewIsNotProposed() {
        SPaxosScripted c = SPaxosScripted.of(SPaxosScripted.config(5, 3, 64));
        c.electZero();
        for (int peer = 0; peer < 5; peer++) {
            if (peer != 1 && peer != 0) {
                c.cutLink(1, peer);
            }
        }
        c.propose(1, batch("x"));
        c.run(5);
        assertThat(c.events(0, "stable")).isEmpty();
        assertThat(c.decidedIds(0)).isEmpty();
        c.heal();
        c.propose(1, batch("y"));
        c.run(200);
        assertThat(c.decidedIds(0)).isNotEmpty();
        assertThat(c.events(0, "stable")).isNotEmpty();
        for (SPaxosScripted.Event e : c.events(0, "decided")) {
            for (BatchId id : e.ids()) {
                assertThat(indexOf(c.events.stream().filter(x -> x.replica() == 0).toList(), "stable", id))
                        .as("%s stable at the leader before it was decided", id).isNotNegative();
            }
        }
    }

    @Test
    @DisplayName("seed 002 §IV-C, Table II: ids accumulate while the ordering window is full and go in values of at most idsPerValue")
    void idsAccumulateWhileTheWindowIsFull() {
        SPaxosScripted c = SPaxosScripted.of(SPaxosScripted.config(3, 1, 4));
        c.electZero();
        for (int i = 0; i < 11; i++) {
            c.propose(1 + i % 2, batch("b" + i));
        }
        c.run(50);
        List<SPaxosScripted.Event> values = c.events(0, "decided");
        assertThat(values).allSatisfy(e -> assertThat(e.ids()).hasSizeBetween(1, 4));
        assertThat(values).anySatisfy(e -> assertThat(e.ids()).hasSizeGreaterThan(1));
        assertThat(c.decidedIds(0)).hasSize(11).doesNotHaveDuplicates();
        assertThat(values.size()).isLessThan(11);
        assertThat(c.executed(2)).hasSize(11);
    }

    @Test
    @DisplayName("seed 002 §IV-A, Alg. 1 l.32–36, §IV-B b: a new leader re-proposes what Phase 1 reports and proposes only stable \\ (reproposed ∪ decided)")
    void newLeaderProposesStableMinusReproposedAndDecided() {
        SPaxosScripted c = SPaxosScripted.of(SPaxosScripted.config(3, 3, 64));
        c.electZero();
        c.propose(2, batch("decided-first"));
        c.run(10);
        assertThat(c.executed(1)).hasSize(1);
        // The leader's next Propose reaches replica 1 only, and 1's vote reaches nobody.
        c.cutLink(0, 0);
        c.cutLink(0, 2);
        c.cutLink(1, 0);
        c.cutLink(1, 2);
        c.cutLink(2, 0);
        c.propose(2, batch("voted-at-1"));
        c.deliverAll(1000);
        c.heal();
        c.isolate(0);
        c.propose(2, batch("stable-only"));
        c.run(2000);
        List<BatchId> decided = c.decidedIds(1);
        assertThat(decided).hasSize(3).doesNotHaveDuplicates();
        assertThat(c.core(1).ordering().isLeader()).isTrue();
        assertThat(c.deliveredBodies(1)).containsExactly("decided-first", "voted-at-1", "stable-only");
        assertThat(c.deliveredBodies(2)).containsExactly("decided-first", "voted-at-1", "stable-only");
    }

    @Test
    @DisplayName("seed 002 §IV-D: dissemination and stability go on while no ordering leader exists; ordering resumes with them")
    void disseminationContinuesWithoutALeader() {
        SPaxosScripted c = SPaxosScripted.of(SPaxosScripted.config(3, 3, 64));
        c.electZero();
        c.isolate(0);
        c.propose(1, batch("p"));
        c.propose(2, batch("q"));
        c.run(5);
        assertThat(c.events(1, "stable")).hasSize(2);
        assertThat(c.events(2, "stable")).hasSize(2);
        assertThat(c.decidedIds(1)).isEmpty();
        c.run(2000);
        assertThat(c.deliveredBodies(1)).containsExactlyInAnyOrder("p", "q");
        assertThat(c.deliveredBodies(2)).containsExactlyInAnyOrder("p", "q");
    }

    @Test
    @DisplayName("compaction keeps every body a restart needs; a crashed replica replays and executes the same batches")
    void compactionKeepsWhatARestartNeeds() {
        SPaxosScripted c = SPaxosScripted.of(SPaxosScripted.config(3, 3, 64));
        c.electZero();
        for (int i = 0; i < 4; i++) {
            c.propose(1, batch("early" + i));
            c.run(3);
        }
        long cut = c.core(2).nextToExecute();
        c.isolate(2);
        c.propose(1, batch("late"));
        c.run(3);
        c.heal();
        c.run(300);
        assertThat(c.deliveredBodies(2)).as("caught up before the snapshot").contains("late");
        c.compact(2, cut);
        c.crashAndRestart(2);
        // The restarted replica installs a snapshot at the cut (its own) and replays the rest from its log.
        ExecutedIds atCut = new ExecutedIds();
        for (SPaxosScripted.Event e : c.events(2, "executed")) {
            if (e.instance() < cut) {
                e.ids().forEach(atCut::firstExecution);
            }
        }
        c.core(2).skipTo(cut, ByteBuffer.wrap(atCut.toBytes()));
        c.isolate(2);
        c.run(3);
        List<String> replayed = c.deliveredBodies(2);
        assertThat(replayed).as("replayed from the log, bodies included").containsExactly("late");
        assertThat(c.core(2).dissemination().heldBodies()).as("bodies executed below the cut are gone").isEqualTo(1);
    }

    private static int indexOf(List<SPaxosScripted.Event> events, String kind, BatchId id) {
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).kind().equals(kind) && events.get(i).ids().contains(id)) {
                return i;
            }
        }
        return -1;
    }

    // ---------------------------------------------------------------- one core fed by hand

    private static final class Hand {
        final EffectBuffer<SPaxosWire, SPaxosRecord, SPaxosValue> out = new EffectBuffer<>();
        final List<Executable> executed = new ArrayList<>();
        final SPaxosCore core;
        long now = MS;

        Hand(SPaxosConfig config) {
            core = new SPaxosCore(config, 1, List.of(), false, 1, 0, SPaxosCore.Observer.NONE);
        }

        void step() {
            for (EffectBuffer.Decision<SPaxosValue> d : out.decisions()) {
                executed.add((Executable) d.value());
            }
            out.clear();
        }

        /** Origin {@code origin} forwards {@code id} with body {@code text}. */
        void forward(BatchId id, String text) {
            core.onMessage(id.origin(), new DisseminationMessage.Forward(id,
                    ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)).asReadOnlyBuffer(),
                    new AckVector(List.of(new AckVector.Entry(id.origin(), id.incarnation(), id.sn())))), now, out);
            step();
        }

        /** The leader of view 0 (replica 0) gets {@code value} decided at {@code instance}: Propose, then Accepts from 0 and 2. */
        void decide(long instance, Value value) {
            core.onMessage(0, new SPaxosWire.Ordering(new PaxosMessage.Propose(0, instance, value)), now, out);
            step();
            core.onMessage(0, new SPaxosWire.Ordering(new PaxosMessage.Accept(0, instance)), now, out);
            step();
            core.onMessage(2, new SPaxosWire.Ordering(new PaxosMessage.Accept(0, instance)), now, out);
            step();
        }

        Map<Long, List<BatchId>> executedIds() {
            Map<Long, List<BatchId>> m = new HashMap<>();
            executed.forEach(e -> m.put(e.instance(), e.ids()));
            return m;
        }

        long event(String name) {
            long[] v = {-1};
            core.reportEvents((n, count) -> {
                if (n.equals(name)) {
                    v[0] = count;
                }
            });
            return v[0];
        }
    }

    private static final BatchId X = new BatchId(2, 5, 1);
    private static final BatchId Y = new BatchId(2, 5, 2);
    private static final BatchId Z = new BatchId(0, 3, 1);

    @Test
    @DisplayName("Agreement: a catch-up reply deciding other ids for a decided instance is a safety violation, forwarded from the ordering core")
    void aSecondDifferentDecisionIsASafetyViolation() {
        Hand h = new Hand(SPaxosScripted.config(3, 3, 64));
        h.forward(X, "x");
        h.decide(0, IdList.encode(List.of(X)));
        h.core.onMessage(2, new SPaxosWire.Ordering(new PaxosMessage.CatchUpReply(0, 0,
                List.of(new PaxosMessage.Decided(0, IdList.encode(List.of(Y)))))), h.now, h.out);
        assertThat(h.out.safetyViolations()).singleElement().satisfies(v -> {
            assertThat(v.instance()).isZero();
            assertThat(v.conflicting().sender()).isEqualTo(2);
        });
        assertThat(h.out.decisions()).isEmpty();
        h.out.clear();
        h.core.onMessage(2, new SPaxosWire.Ordering(new PaxosMessage.CatchUpReply(0, 0,
                List.of(new PaxosMessage.Decided(0, IdList.encode(List.of(X)))))), h.now, h.out);
        assertThat(h.out.safetyViolations()).as("the same decision again").isEmpty();
    }

    @Test
    @DisplayName("seed 002 footnote 5: an id decided twice executes once, at its first instance")
    void anIdDecidedTwiceExecutesOnce() {
        Hand h = new Hand(SPaxosScripted.config(3, 3, 64));
        h.forward(X, "x");
        h.forward(Y, "y");
        h.decide(0, IdList.encode(List.of(X)));
        h.decide(1, IdList.encode(List.of(X, Y)));
        h.decide(2, IdList.encode(List.of(Y)));
        assertThat(h.executedIds()).containsOnlyKeys(0L, 1L);
        assertThat(h.executedIds().get(0L)).containsExactly(X);
        assertThat(h.executedIds().get(1L)).containsExactly(Y);
        assertThat(h.event("duplicates")).isEqualTo(2);
    }

    @Test
    @DisplayName("seed 002 §IV-A, Alg. 1 l.19–22: execution waits for a missing body, fetches it, and keeps instance order")
    void executionWaitsForAMissingBody() {
        Hand h = new Hand(SPaxosScripted.config(3, 3, 64));
        h.forward(Y, "y");
        h.decide(0, IdList.encode(List.of(Z)));
        h.decide(1, IdList.encode(List.of(Y)));
        assertThat(h.executed).isEmpty();
        assertThat(h.core.executionWaiting()).isEqualTo(2);
        h.forward(Z, "z");
        assertThat(h.executed).extracting(Executable::instance).containsExactly(0L, 1L);
        assertThat(h.core.executionWaiting()).isZero();
        assertThat(h.event("execution.waiting")).isEqualTo(1);
    }

    @Test
    @DisplayName("a decided value that is not an id list executes nothing, is counted, and execution goes on")
    void malformedDecidedValueExecutesNothing() {
        Hand h = new Hand(SPaxosScripted.config(3, 3, 64));
        h.forward(X, "x");
        h.decide(0, Value.of("not an id list".getBytes(StandardCharsets.UTF_8)));
        h.decide(1, IdList.encode(List.of(new BatchId(dev.parallax.core.membership.Membership.ID_SPACE, 1, 1))));
        h.decide(2, IdList.encode(List.of(X)));
        assertThat(h.executed).extracting(Executable::instance).containsExactly(2L);
        assertThat(h.event("malformed.values")).isEqualTo(2);
    }

    @Test
    @DisplayName("R2: skipTo(p, state) decides duplicates exactly as a replica that never installed; an empty state would not")
    void installedDeliveryStateKeepsDedupIdentical() {
        SPaxosConfig config = SPaxosScripted.config(3, 3, 64);
        Hand never = new Hand(config);
        never.forward(X, "x");
        never.forward(Y, "y");
        never.decide(0, IdList.encode(List.of(X)));
        never.decide(1, IdList.encode(List.of(X, Y)));
        ExecutedIds atOne = new ExecutedIds();
        atOne.firstExecution(X);

        Hand installed = new Hand(config);
        installed.core.skipTo(1, ByteBuffer.wrap(atOne.toBytes()));
        installed.forward(X, "x");
        installed.forward(Y, "y");
        installed.decide(1, IdList.encode(List.of(X, Y)));
        assertThat(installed.executedIds()).isEqualTo(Map.of(1L, never.executedIds().get(1L)));
        assertThat(installed.core.executedIds()).isEqualTo(never.core.executedIds());

        Hand empty = new Hand(config);
        empty.core.skipTo(1, ByteBuffer.allocate(0));
        empty.forward(X, "x");
        empty.forward(Y, "y");
        empty.decide(1, IdList.encode(List.of(X, Y)));
        assertThat(empty.executedIds().get(1L)).as("negative control: without the state X runs again").containsExactly(X, Y);
    }

    @Test
    @DisplayName("only client batches are proposed to the core")
    void onlyClientBatchesAreProposed() {
        Hand h = new Hand(SPaxosScripted.config(3, 3, 64));
        Set<Boolean> taken = new HashSet<>();
        taken.add(h.core.onProposal(batch("local"), h.now, h.out));
        assertThat(taken).containsExactly(true);
        assertThat(h.out.records()).anyMatch(r -> r instanceof SPaxosRecord.Dissemination);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> h.core.onProposal(
                new Executable(0, List.of(X), List.of(ByteBuffer.allocate(1))), h.now, h.out))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("docs/protocols/s-paxos.md \"Recovery from amnesia\": an amnesiac core recovers while ordering or dissemination does, and each layer's recovery is its own")
    void recoveringWhileEitherLayerRecovers() {
        SPaxosConfig config = SPaxosScripted.config(3, 3, 64);
        EffectBuffer<SPaxosWire, SPaxosRecord, SPaxosValue> out = new EffectBuffer<>();
        SPaxosCore c = new SPaxosCore(config, 2, List.of(), true, 1, 0, SPaxosCore.Observer.NONE);
        assertThat(c.recovering()).isTrue();
        c.onTick(MS, out);
        c.onMessage(0, new SPaxosWire.Ordering(new PaxosMessage.RecoveryReply(1, 0, true, -1)), 2 * MS, out);
        c.onMessage(1, new SPaxosWire.Ordering(new PaxosMessage.RecoveryReply(1, 0, true, -1)), 2 * MS, out);
        assertThat(c.ordering().recovering()).as("both peers answered, nothing below H").isFalse();
        assertThat(c.dissemination().recovering()).isTrue();
        assertThat(c.recovering()).as("dissemination has not heard its peers' vectors").isTrue();
        AckVector holdsOne = new AckVector(List.of(new AckVector.Entry(0, 0, 1)));
        c.onMessage(0, new DisseminationMessage.Ack(holdsOne), 3 * MS, out);
        c.onMessage(1, new DisseminationMessage.Ack(holdsOne), 3 * MS, out);
        assertThat(c.recovering()).as("0:0:1 is counted here and not held").isTrue();
        c.onMessage(0, new DisseminationMessage.Forward(new BatchId(0, 0, 1),
                ByteBuffer.wrap("x".getBytes(StandardCharsets.UTF_8)), holdsOne), 4 * MS, out);
        assertThat(c.recovering()).isFalse();

        SPaxosCore other = new SPaxosCore(config, 2, List.of(), true, 1, 0, SPaxosCore.Observer.NONE);
        other.onMessage(0, new DisseminationMessage.Ack(AckVector.EMPTY), MS, out);
        other.onMessage(1, new DisseminationMessage.Ack(AckVector.EMPTY), MS, out);
        assertThat(other.dissemination().recovering()).isFalse();
        assertThat(other.recovering()).as("ordering still recovers").isTrue();
        SPaxosCore sound = new SPaxosCore(config, 2, List.of(), false, 1, 0, SPaxosCore.Observer.NONE);
        assertThat(sound.recovering()).isFalse();
    }
}
