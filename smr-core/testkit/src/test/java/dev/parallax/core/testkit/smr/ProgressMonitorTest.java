package dev.parallax.core.testkit.smr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.batch.CommandBatch;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The post-heal progress bound: what counts as waiting, from when, and what clears it. */
class ProgressMonitorTest {
    private static final long MS = 1_000_000L;

    private static ByteBuffer batch(long client, long... seqs) {
        List<Command> commands = new java.util.ArrayList<>();
        for (long s : seqs) {
            commands.add(new Command(new CommandId(client, s), ByteBuffer.wrap(new byte[]{(byte) s})));
        }
        return CommandBatch.encode(commands);
    }

    @Test
    void beforeTheHealNothingIsBounded() {
        ProgressMonitor p = new ProgressMonitor();
        p.proposed(0, batch(1, 1), 0);
        p.check(10_000 * MS);
        assertThat(p.tracked()).isZero();
    }

    @Test
    void aCommandUndecidedAtTheHealMustBeDecidedWithinTheBoundOfTheHeal() {
        ProgressMonitor p = new ProgressMonitor();
        p.proposed(0, batch(1, 1), 0);
        p.arm(1_000 * MS, 500 * MS);
        p.check(1_500 * MS);
        assertThatThrownBy(() -> p.check(1_501 * MS)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("progress").hasMessageContaining("proposed by leader 0")
                .hasMessageContaining("after the faults healed");
    }

    @Test
    void aCommandProposedAfterTheHealIsTimedFromItsProposalAndClearedByAnyDecisionOfIt() {
        ProgressMonitor p = new ProgressMonitor();
        p.arm(0, 100 * MS);
        p.proposed(2, batch(1, 1, 2), 50 * MS);
        // A retry re-proposed in another batch by the next leader does not restart the clock.
        p.proposed(1, batch(1, 2), 120 * MS);
        p.decided(batch(1, 1), 140 * MS);
        assertThatThrownBy(() -> p.check(151 * MS)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("command 1:2").hasMessageContaining("after its proposal");
        p.decided(batch(1, 2), 151 * MS);
        p.check(10_000 * MS);
        assertThat(p.tracked()).isEqualTo(2);
        assertThat(p.maxLatency()).isEqualTo(101 * MS);
    }

    @Test
    void aCommandDecidedBeforeIsNotWaitedForWhenProposedAgain() {
        ProgressMonitor p = new ProgressMonitor();
        p.proposed(0, batch(7, 1), 0);
        p.decided(batch(7, 1), MS);
        p.arm(2 * MS, MS);
        p.proposed(1, batch(7, 1), 3 * MS);
        p.decided(null, 4 * MS);
        p.check(100 * MS);
        assertThat(p.tracked()).isZero();
    }
}
