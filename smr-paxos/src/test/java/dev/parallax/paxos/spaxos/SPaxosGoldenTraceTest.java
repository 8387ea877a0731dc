package dev.parallax.paxos.spaxos;

import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.core.testkit.GoldenFiles;
import dev.parallax.paxos.PaxosMessage;
import dev.parallax.paxos.Value;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static dev.parallax.paxos.spaxos.SPaxosScripted.MS;
import static dev.parallax.paxos.spaxos.SPaxosScripted.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Golden traces of {@link SPaxosCore} (every input and effect, {@code src/test/resources/golden/spaxos/}):
 * a protocol change that alters behaviour shows up as a readable diff. Regenerate with
 * {@code -Dgolden.update=true} and review. The cluster traces come from the scripted cluster; the
 * duplicate decision and the snapshot install need decisions and installs no cluster script makes
 * cheaply, so one core is fed by hand and its effects are written in the same format.
 */
class SPaxosGoldenTraceTest {

    private static void steps(SPaxosScripted c, int count, long stepNanos) {
        for (int i = 0; i < count; i++) {
            c.tick(stepNanos);
            c.deliverAll(100_000);
        }
    }

    @Test
    @DisplayName("seed 002 §IV-A, Alg. 1 l.9–22: two origins, forward, piggy-backed acks, stability, id proposal, execution")
    void normal() {
        SPaxosScripted c = SPaxosScripted.of(SPaxosScripted.config(3, 3, 64));
        c.electZero();
        c.propose(1, batch("one"));
        c.propose(2, batch("two"));
        steps(c, 4, MS);
        assertThat(c.deliveredBodies(0)).containsExactlyInAnyOrder("one", "two");
        GoldenFiles.assertMatches("spaxos/spaxos-normal.txt", c.trace());
    }

    @Test
    @DisplayName("seed 002 §IV-A, Alg. 1 l.32–36, §IV-B b: the new leader re-proposes the reported id list and proposes the other stable ids once")
    void viewChangeReproposals() {
        SPaxosScripted c = SPaxosScripted.of(SPaxosScripted.config(3, 3, 64));
        c.electZero();
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
        steps(c, 14, 50 * MS);
        assertThat(c.deliveredBodies(2)).containsExactly("voted-at-1", "stable-only");
        GoldenFiles.assertMatches("spaxos/spaxos-view-change-reproposals.txt", c.trace());
    }

    @Test
    @DisplayName("seed 002 §IV-A, Alg. 1 l.19–22, l.26–31: an id decided before its body arrived is fetched at once, then executed in order")
    void decidedBeforeBody() {
        SPaxosScripted c = SPaxosScripted.of(SPaxosScripted.config(3, 3, 64));
        c.electZero();
        c.cutLink(1, 2);
        c.propose(1, batch("late-body"));
        c.deliverAll(1000);
        c.heal();
        steps(c, 4, MS);
        assertThat(c.deliveredBodies(2)).containsExactly("late-body");
        GoldenFiles.assertMatches("spaxos/spaxos-decided-before-body.txt", c.trace());
    }

    /** One core (replica 1 of 3) fed by hand; each input and the effects it caused become trace lines. */
    private static final class HandTrace {
        final List<String> trace = new ArrayList<>();
        final EffectBuffer<SPaxosWire, SPaxosRecord, SPaxosValue> out = new EffectBuffer<>();
        final SPaxosCore core = new SPaxosCore(SPaxosScripted.config(3, 3, 64), 1, List.of(), false, 1, 0,
                SPaxosCore.Observer.NONE);

        void input(String what) {
            trace.add("in " + what);
            for (SPaxosRecord r : out.records()) {
                trace.add("  persist " + r + (out.syncRequested() ? " (sync)" : ""));
            }
            for (EffectBuffer.Outgoing<SPaxosWire> o : out.sends()) {
                trace.add("  send ->" + o.to() + " " + o.message());
            }
            for (EffectBuffer.Decision<SPaxosValue> d : out.decisions()) {
                trace.add("  decide " + d.instance() + " " + d.value());
            }
            out.clear();
        }

        void forward(BatchId id, String text) {
            DisseminationMessage.Forward f = new DisseminationMessage.Forward(id,
                    ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)).asReadOnlyBuffer(),
                    new AckVector(List.of(new AckVector.Entry(id.origin(), id.incarnation(), id.sn()))));
            core.onMessage(id.origin(), f, MS, out);
            input(id.origin() + " " + f);
        }

        void decide(long instance, List<BatchId> ids) {
            Value v = IdList.encode(ids);
            core.onMessage(0, new SPaxosWire.Ordering(new PaxosMessage.Propose(0, instance, v)), MS, out);
            input("0 Propose " + instance + " " + ids);
            core.onMessage(0, new SPaxosWire.Ordering(new PaxosMessage.Accept(0, instance)), MS, out);
            input("0 Accept " + instance);
            core.onMessage(2, new SPaxosWire.Ordering(new PaxosMessage.Accept(0, instance)), MS, out);
            input("2 Accept " + instance);
        }
    }

    private static final BatchId X = new BatchId(2, 5, 1);
    private static final BatchId Y = new BatchId(2, 5, 2);

    @Test
    @DisplayName("seed 002 footnote 5: an id decided at two instances executes at the first only")
    void duplicateDecision() {
        HandTrace h = new HandTrace();
        h.forward(X, "x");
        h.forward(Y, "y");
        h.decide(0, List.of(X));
        h.decide(1, List.of(Y, X));
        h.decide(2, List.of(X));
        assertThat(h.trace).filteredOn(l -> l.startsWith("  decide")).hasSize(2);
        GoldenFiles.assertMatches("spaxos/spaxos-duplicate-decision.txt", h.trace);
    }

    @Test
    @DisplayName("R2: a core that installed a snapshot with its executed ids skips the same duplicate as the others")
    void snapshotInstall() {
        HandTrace h = new HandTrace();
        ExecutedIds atTwo = new ExecutedIds();
        atTwo.firstExecution(X);
        h.core.skipTo(2, ByteBuffer.wrap(atTwo.toBytes()).asReadOnlyBuffer());
        h.trace.add("skipTo 2 with " + atTwo);
        h.forward(X, "x");
        h.forward(Y, "y");
        h.decide(1, List.of(X));
        h.decide(2, List.of(X, Y));
        assertThat(h.trace).filteredOn(l -> l.startsWith("  decide")).hasSize(1);
        GoldenFiles.assertMatches("spaxos/spaxos-snapshot-install.txt", h.trace);
    }
}
