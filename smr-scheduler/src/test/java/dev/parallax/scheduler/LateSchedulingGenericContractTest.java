package dev.parallax.scheduler;

/** The executor contract for late scheduling over an opaque conflict relation. */
class LateSchedulingGenericContractTest extends ExecutorKindContract {
    LateSchedulingGenericContractTest() {
        super(ExecutorKind.LATE_GENERIC);
    }
}
