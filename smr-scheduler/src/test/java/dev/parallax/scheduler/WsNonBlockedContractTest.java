package dev.parallax.scheduler;

/** The executor contract for early scheduling with work stealing, SyncMode.WS_NON_BLOCKED. */
class WsNonBlockedContractTest extends ExecutorKindContract {
    WsNonBlockedContractTest() {
        super(ExecutorKind.WS_NON_BLOCKED);
    }
}
