package dev.parallax.core.speculation;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The speculation ledger's rules S1–S6 (seed 003 (Marandi thesis) §4.2.1): execute on the tentative
 * position in position order, confirm only on the decision, undo past the first undecided position
 * on a revocation or a mismatch, re-execute in decided order, decided state around snapshots and
 * queries.
 */
class SpeculationLedgerTest {

    /** A host that records what it was asked to do, as "x@p" (execute), "u@p", "c@p", "d@p". */
    private static class Log implements SpeculationLedger.Host<String> {
        final List<String> steps = new ArrayList<>();

        @Override
        public String execute(long position, ByteBuffer value) {
            String v = text(value);
            steps.add("x" + v + "@" + position);
            return v;
        }

        @Override
        public void undo(long position, String executed) {
            steps.add("u" + executed + "@" + position);
        }

        @Override
        public void confirm(long position, String executed, Runnable rollbackLater) {
            steps.add("c" + executed + "@" + position);
        }

        @Override
        public void deliver(long position, ByteBuffer value) {
            steps.add("d" + text(value) + "@" + position);
        }

        List<String> take() {
            List<String> s = List.copyOf(steps);
            steps.clear();
            return s;
        }
    }

    private static ByteBuffer b(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return new String(a, StandardCharsets.UTF_8);
    }

    @Test
    @DisplayName("S1/S2: a tentative runs at once in position order, and is answered (confirmed) only on its decision")
    void executesOnTentativeAndConfirmsOnDecide() {
        Log host = new Log();
        SpeculationLedger<String> l = new SpeculationLedger<>(host, 0);
        l.tentative(0, b("a"));
        l.tentative(1, b("b"));
        assertThat(host.take()).containsExactly("xa@0", "xb@1");
        l.tentative(1, b("b"));  // a duplicate 2A changes nothing
        assertThat(host.take()).isEmpty();
        l.decided(0, b("a"));
        assertThat(host.take()).containsExactly("ca@0");
        l.decided(1, b("b"));
        assertThat(host.take()).containsExactly("cb@1");
        assertThat(l.confirmed()).isEqualTo(2);
        assertThat(l.speculating()).isZero();
    }

    @Test
    @DisplayName("S1: a tentative beyond a gap (a lost 2A) waits until the gap is filled, then runs in order")
    void waitsForTheGap() {
        Log host = new Log();
        SpeculationLedger<String> l = new SpeculationLedger<>(host, 0);
        l.tentative(1, b("b"));
        l.tentative(2, b("c"));
        assertThat(host.take()).isEmpty();
        l.decided(0, b("a"));   // the gap is filled by the decision
        assertThat(host.take()).containsExactly("da@0", "xb@1", "xc@2");
    }

    @Test
    @DisplayName("S3: a decision other than what ran undoes every speculated position from there, last first, then delivers plainly")
    void mismatchUndoesAndDeliversTheDecision() {
        Log host = new Log();
        SpeculationLedger<String> l = new SpeculationLedger<>(host, 0);
        l.tentative(0, b("a"));
        l.tentative(1, b("b"));
        l.tentative(2, b("c"));
        host.take();
        l.decided(0, b("a"));
        l.decided(1, b("z"));
        assertThat(host.take()).containsExactly("ca@0", "uc@2", "ub@1", "dz@1");
        assertThat(l.rolledBack()).isEqualTo(2);
    }

    @Test
    @DisplayName("S4/S5: a coordinator change undoes what ran past the first undecided position; the new round's order runs instead")
    void revokeRollsBackPastTheFirstUndecided() {
        Log host = new Log();
        SpeculationLedger<String> l = new SpeculationLedger<>(host, 0);
        l.tentative(0, b("a"));
        l.tentative(1, b("b"));
        l.tentative(2, b("c"));
        l.decided(0, b("a"));
        host.take();
        l.revoke(1);
        assertThat(host.take()).containsExactly("uc@2", "ub@1");
        l.tentative(2, b("c"));     // a stale 2A beyond the gap: waits
        l.tentative(1, b("x"));     // the new coordinator's order
        assertThat(host.take()).containsExactly("xx@1", "xc@2");
        l.decided(1, b("x"));
        l.decided(2, b("c"));
        assertThat(host.take()).containsExactly("cx@1", "cc@2");
    }

    @Test
    @DisplayName("S4: a revocation below the frontier touches nothing decided")
    void revokeBelowTheFrontierKeepsDecided() {
        Log host = new Log();
        SpeculationLedger<String> l = new SpeculationLedger<>(host, 0);
        l.tentative(0, b("a"));
        l.decided(0, b("a"));
        l.tentative(1, b("b"));
        host.take();
        l.revoke(0);
        assertThat(host.take()).containsExactly("ub@1");
        assertThat(l.frontier()).isEqualTo(1);
    }

    @Test
    @DisplayName("S3: a tentative that replaces a speculated value (a newer round's 2A) undoes from there and runs the new one")
    void replacedTentative() {
        Log host = new Log();
        SpeculationLedger<String> l = new SpeculationLedger<>(host, 0);
        l.tentative(0, b("a"));
        l.tentative(1, b("b"));
        host.take();
        l.tentative(0, b("y"));
        assertThat(host.take()).containsExactly("ub@1", "ua@0", "xy@0");
    }

    @Test
    @DisplayName("S6: suspend undoes every speculated position (decided state for a snapshot or a query), resume re-runs them in order")
    void suspendAndResume() {
        Log host = new Log();
        SpeculationLedger<String> l = new SpeculationLedger<>(host, 0);
        l.tentative(0, b("a"));
        l.tentative(1, b("b"));
        host.take();
        l.suspend();
        assertThat(host.take()).containsExactly("ub@1", "ua@0");
        l.tentative(2, b("c"));
        assertThat(host.take()).as("nothing runs while suspended").isEmpty();
        l.resume();
        assertThat(host.take()).containsExactly("xa@0", "xb@1", "xc@2");
    }

    @Test
    @DisplayName("no-ops hold their position: a tentative no-op lets the next run, a decided no-op is confirmed without the host")
    void noOpsOccupyTheirPosition() {
        Log host = new Log();
        SpeculationLedger<String> l = new SpeculationLedger<>(host, 0);
        l.tentative(0, null);
        l.tentative(1, b("b"));
        assertThat(host.take()).containsExactly("xb@1");
        l.decided(0, null);
        l.decided(1, b("b"));
        assertThat(host.take()).containsExactly("cb@1");
        l.tentative(2, null);
        l.decided(2, b("q"));   // a no-op guessed, a value decided: delivered plainly
        assertThat(host.take()).containsExactly("dq@2");
    }

    @Test
    @DisplayName("a host that finds its guess wrong on confirm rolls back the later positions, keeping their tentatives for a re-run")
    void hostRollbackOnConfirm() {
        Log host = new Log() {
            @Override
            public void confirm(long position, String executed, Runnable rollbackLater) {
                super.confirm(position, executed, rollbackLater);
                rollbackLater.run();
            }
        };
        SpeculationLedger<String> l = new SpeculationLedger<>(host, 0);
        l.tentative(0, b("a"));
        l.tentative(1, b("b"));
        host.take();
        l.decided(0, b("a"));
        assertThat(host.take()).containsExactly("ca@0", "ub@1", "xb@1");
    }

    @Test
    @DisplayName("an installed snapshot resets: everything speculative undone and forgotten, the frontier jumps")
    void reset() {
        Log host = new Log();
        SpeculationLedger<String> l = new SpeculationLedger<>(host, 0);
        l.tentative(0, b("a"));
        l.tentative(5, b("f"));
        host.take();
        l.reset(10);
        assertThat(host.take()).containsExactly("ua@0");
        assertThat(l.frontier()).isEqualTo(10);
        assertThat(l.pending()).isZero();
        l.decided(10, b("k"));
        assertThat(host.take()).containsExactly("dk@10");
    }
}
