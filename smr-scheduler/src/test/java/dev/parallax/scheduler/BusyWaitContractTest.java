package dev.parallax.scheduler;

/** The executor contract for early scheduling, SyncMode.BUSY_WAIT. */
class BusyWaitContractTest extends ExecutorKindContract {
    BusyWaitContractTest() {
        super(ExecutorKind.BUSY_WAIT);
    }
}
