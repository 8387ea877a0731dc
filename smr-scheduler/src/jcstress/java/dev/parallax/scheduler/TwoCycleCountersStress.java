package dev.parallax.scheduler;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * jcstress tests of the busy-wait counters (seed 001 §6.1, Alg. 4–5): exactly one of the class's
 * threads is the last arriver, the release publishes the executed request's effects, and two
 * threads running consecutive SEQ requests of one class with per-thread cycle bits neither deadlock
 * (the lost-reset case) nor execute a request twice.
 */
public final class TwoCycleCountersStress {
    private TwoCycleCountersStress() {
    }

    @JCStressTest
    @Outcome(id = {"1, 2", "2, 1"}, expect = Expect.ACCEPTABLE, desc = "exactly one last arriver")
    @Outcome(expect = Expect.FORBIDDEN, desc = "both or neither would execute")
    @State
    public static class OneLastArriver {
        private final TwoCycleCounters marks = new TwoCycleCounters(1);

        @Actor
        public void t1(II_Result r) {
            r.r1 = marks.arrive(0, 1);
        }

        @Actor
        public void t2(II_Result r) {
            r.r2 = marks.arrive(0, 1);
        }
    }

    @JCStressTest
    @Outcome(id = "-1", expect = Expect.ACCEPTABLE, desc = "request not yet released")
    @Outcome(id = "42", expect = Expect.ACCEPTABLE, desc = "released, effect visible")
    @Outcome(expect = Expect.FORBIDDEN, desc = "released but the request's effect is not visible")
    @State
    public static class ReleasePublishesTheRequestsEffects {
        private final TwoCycleCounters marks = new TwoCycleCounters(1);
        private int state;

        public ReleasePublishesTheRequestsEffects() {
            marks.arrive(0, 1);
            marks.arrive(0, 1);
        }

        @Actor
        public void executor() {
            state = 42;
            marks.release(0, 1);
        }

        @Actor
        public void waiter(I_Result r) {
            r.r1 = marks.released(0, 1) ? state : -1;
        }
    }

    /**
     * Two threads of one SEQ class run two requests each, Alg. 5 line by line with the erratum (the
     * last arriver executes). Every request runs exactly once and no thread is left waiting.
     */
    @JCStressTest
    @Outcome(id = "2", expect = Expect.ACCEPTABLE, desc = "each request executed once")
    @Outcome(expect = Expect.FORBIDDEN, desc = "a request executed twice or never")
    @State
    public static class ConsecutiveRequestsNeitherDeadlockNorRepeat {
        private final TwoCycleCounters marks = new TwoCycleCounters(1);
        private final java.util.concurrent.atomic.AtomicInteger executions = new java.util.concurrent.atomic.AtomicInteger();

        private void worker() {
            int cycle = 0;
            for (int req = 0; req < 2; req++) {
                cycle ^= 1;
                if (marks.arrive(0, cycle) == 2) {
                    executions.incrementAndGet();
                    marks.release(0, cycle);
                } else {
                    while (!marks.released(0, cycle)) {
                        Thread.onSpinWait();
                    }
                }
            }
        }

        @Actor
        public void t1() {
            worker();
        }

        @Actor
        public void t2() {
            worker();
        }

        @Arbiter
        public void count(I_Result r) {
            r.r1 = executions.get();
        }
    }
}
