package dev.parallax.scheduler;

import dev.parallax.core.Command;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * jcstress tests of the work-stealing hand-off (seed 001 §6.2, Alg. 6–8, with the errata): a ready
 * queue's requests go to exactly one of the owner's transfer or a stealer's steal, or stay queued
 * while the scheduler appends; a SEQ request is never stolen; and a victim that sees its
 * stealer's marker cleared sees the stolen request's effects.
 */
public final class StealingHandOffStress {
    private static final Command CONC = Command.of(1, 1, new byte[] {0});
    private static final Command SEQ = Command.of(1, 2, new byte[] {1});

    private StealingHandOffStress() {
    }

    @JCStressTest
    @Outcome(id = {"1, 0, 0", "0, 1, 0"}, expect = Expect.ACCEPTABLE, desc = "the request went to the owner or the stealer")
    @Outcome(expect = Expect.FORBIDDEN, desc = "the request was lost or taken twice")
    @State
    public static class TransferAndStealTakeTheRequestOnce {
        private final ReadyQueue queue = new ReadyQueue(4, 1, 2);

        public TransferAndStealTakeTheRequestOnce() {
            queue.put(CONC, 0, false);
        }

        @Actor
        public void owner(III_Result r) {
            r.r1 = queue.transfer(new TaskBatch(4)).size();
        }

        @Actor
        public void stealer(III_Result r) {
            TaskBatch stolen = queue.steal(new TaskBatch(4), 1, null);
            r.r2 = stolen == null ? 0 : stolen.size();
        }

        @Arbiter
        public void remaining(III_Result r) {
            r.r3 = queue.size();
        }
    }

    @JCStressTest
    @Outcome(id = {"2, 0", "1, 1", "0, 2"}, expect = Expect.ACCEPTABLE, desc = "each request stolen once or still queued")
    @Outcome(expect = Expect.FORBIDDEN, desc = "a request lost or duplicated while the scheduler appends")
    @State
    public static class AppendAndStealNeitherLoseNorDuplicate {
        private final ReadyQueue queue = new ReadyQueue(4, 1, 2);

        public AppendAndStealNeitherLoseNorDuplicate() {
            queue.put(CONC, 0, false);
        }

        @Actor
        public void scheduler() {
            queue.put(CONC, 0, false);
        }

        @Actor
        public void stealer(II_Result r) {
            TaskBatch stolen = queue.steal(new TaskBatch(4), 1, null);
            r.r1 = stolen == null ? 0 : stolen.size();
        }

        @Arbiter
        public void remaining(II_Result r) {
            r.r2 = queue.size();
        }
    }

    @JCStressTest
    @Outcome(id = {"0", "1"}, expect = Expect.ACCEPTABLE, desc = "nothing, or only the CONC request, stolen")
    @Outcome(expect = Expect.FORBIDDEN, desc = "the SEQ request was stolen")
    @State
    public static class ASequentialRequestIsNeverStolen {
        private final ReadyQueue queue = new ReadyQueue(4, 2, 2);

        public ASequentialRequestIsNeverStolen() {
            queue.put(CONC, 0, false);
        }

        @Actor
        public void scheduler() {
            queue.put(SEQ, 1, true);
        }

        @Actor
        public void stealer(I_Result r) {
            TaskBatch stolen = queue.steal(new TaskBatch(4), 1, null);
            r.r1 = stolen == null ? 0 : stolen.size();
        }
    }

    @JCStressTest
    @Outcome(id = "-1", expect = Expect.ACCEPTABLE, desc = "stealer still running: victim waits")
    @Outcome(id = "1", expect = Expect.ACCEPTABLE, desc = "marker cleared, stolen request's effect visible")
    @Outcome(expect = Expect.FORBIDDEN, desc = "marker cleared but effect not visible")
    @State
    public static class ClearingTheMarkerPublishesTheStolenWork {
        private final ReadyQueue queue = new ReadyQueue(4, 1, 2);
        private int effect;

        public ClearingTheMarkerPublishesTheStolenWork() {
            queue.put(CONC, 0, false);
            queue.steal(new TaskBatch(4), 1, null);
        }

        @Actor
        public void stealer() {
            effect = 1;
            queue.stealDone(1);
        }

        @Actor
        public void victim(I_Result r) {
            r.r1 = queue.hasStealers() ? -1 : effect;
        }
    }
}
