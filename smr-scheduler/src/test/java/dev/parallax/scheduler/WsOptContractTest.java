package dev.parallax.scheduler;

/** The executor contract for early scheduling with work stealing, SyncMode.WS_OPT. */
class WsOptContractTest extends ExecutorKindContract {
    WsOptContractTest() {
        super(ExecutorKind.WS_OPT);
    }
}
