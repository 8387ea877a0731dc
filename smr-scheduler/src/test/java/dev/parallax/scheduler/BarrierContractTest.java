package dev.parallax.scheduler;

/** The executor contract for early scheduling, SyncMode.BARRIER. */
class BarrierContractTest extends ExecutorKindContract {
    BarrierContractTest() {
        super(ExecutorKind.BARRIER);
    }
}
