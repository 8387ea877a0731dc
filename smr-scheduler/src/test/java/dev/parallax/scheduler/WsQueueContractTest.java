package dev.parallax.scheduler;

/** The executor contract for early scheduling with work stealing, SyncMode.WS_QUEUE. */
class WsQueueContractTest extends ExecutorKindContract {
    WsQueueContractTest() {
        super(ExecutorKind.WS_QUEUE);
    }
}
