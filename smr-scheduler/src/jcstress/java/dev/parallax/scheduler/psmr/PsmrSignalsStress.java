package dev.parallax.scheduler.psmr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import dev.parallax.core.StateMachine;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.I_Result;

import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * jcstress tests of P-SMR's signal protocol ({@link PsmrWorkers}, seed 003 (Ring Paxos / Multi-Ring
 * / P-SMR) ch. 6, Alg. 1 l.16-26): per-pair counters with one writer each, a waiter published
 * before the re-check, unpark by the publisher. A member's writes before it signals are visible to
 * the executor's command, the command's writes are visible to the member once released, nobody is
 * left parked (a lost wake-up would hang the run), and consecutive shared commands run once each,
 * in delivery order.
 */
public final class PsmrSignalsStress {
    private PsmrSignalsStress() {
    }

    /** A state machine whose commands run a hook; no snapshots (the stress tests take none). */
    private abstract static class Hooked implements StateMachine {
        @Override
        public void snapshot(WritableByteChannel out) {
            throw new UnsupportedOperationException("not used by the stress tests");
        }

        @Override
        public void restore(ReadableByteChannel in) {
            throw new UnsupportedOperationException("not used by the stress tests");
        }
    }

    private static Command shared(long sequence) {
        return new Command(new CommandId(1, GroupSet.of(0, 1), sequence), ByteBuffer.allocate(0));
    }

    @JCStressTest
    @Outcome(id = "42, 7", expect = Expect.ACCEPTABLE, desc = "the member's write reached the command, the command's write reached the member")
    @Outcome(expect = Expect.FORBIDDEN, desc = "a signal or a release did not publish the writes before it")
    @State
    public static class ASharedCommandPublishesBothWays {
        private int before;
        private int effect;
        private int seen;
        private final PsmrWorkers group = new PsmrWorkers(2, new Hooked() {
            @Override
            public ByteBuffer execute(ByteBuffer command) {
                seen = before;
                effect = 42;
                return ByteBuffer.allocate(0);
            }
        }, (command, result) -> { });

        @Actor
        public void executor() {
            try {
                group.worker(0).deliver(shared(1));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }

        @Actor
        public void member(II_Result r) {
            before = 7;
            try {
                group.worker(1).deliver(shared(1));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            r.r1 = effect;
        }

        @Arbiter
        public void seen(II_Result r) {
            r.r2 = seen;
        }
    }

    @JCStressTest
    @Outcome(id = "12", expect = Expect.ACCEPTABLE, desc = "both shared commands once, in delivery order")
    @Outcome(expect = Expect.FORBIDDEN, desc = "a command ran twice, never, or out of order")
    @State
    public static class ConsecutiveSharedCommandsRunOnceInOrder {
        private final StringBuilder order = new StringBuilder();
        private final PsmrWorkers group = new PsmrWorkers(2, new Hooked() {
            @Override
            public ByteBuffer execute(ByteBuffer command) {
                order.append(command.remaining());
                return ByteBuffer.allocate(0);
            }
        }, (command, result) -> { });

        private static Command sized(int size) {
            return new Command(new CommandId(1, GroupSet.of(0, 1), size), ByteBuffer.allocate(size));
        }

        private void run(int worker) {
            try {
                group.worker(worker).deliver(sized(1));
                group.worker(worker).deliver(sized(2));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }

        @Actor
        public void worker0() {
            run(0);
        }

        @Actor
        public void worker1() {
            run(1);
        }

        @Arbiter
        public void order(I_Result r) {
            r.r1 = Integer.parseInt(order.toString());
        }
    }
}
