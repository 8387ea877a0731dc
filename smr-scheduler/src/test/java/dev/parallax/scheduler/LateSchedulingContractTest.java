package dev.parallax.scheduler;

/** The executor contract for late scheduling over the class map's conflict relation. */
class LateSchedulingContractTest extends ExecutorKindContract {
    LateSchedulingContractTest() {
        super(ExecutorKind.LATE);
    }
}
