package dev.parallax.scheduler;

/** The executor contract for early scheduling with work stealing, SyncMode.WS_SEMI_BLOCKED. */
class WsSemiBlockedContractTest extends ExecutorKindContract {
    WsSemiBlockedContractTest() {
        super(ExecutorKind.WS_SEMI_BLOCKED);
    }
}
