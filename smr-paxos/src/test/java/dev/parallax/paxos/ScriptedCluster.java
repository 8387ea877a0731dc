package dev.parallax.paxos;

/**
 * The testkit's {@link dev.parallax.core.testkit.ScriptedCluster} bound to {@link MultiPaxosCore}:
 * one core per member of {@code config}, recovered from its log with {@link PaxosRecordCodec}.
 * Hand-driven, no randomness; see the testkit class for the script operations and the trace format.
 *
 * <p>Not thread-safe: one test thread drives it.
 */
final class ScriptedCluster
        extends dev.parallax.core.testkit.ScriptedCluster<MultiPaxosCore, PaxosMessage, PaxosRecord, Value> {

    ScriptedCluster(PaxosConfig config) {
        this(config, config.members());
    }

    /**
     * {@code nodes} cores, of which the first {@code config.members()} are the cluster file's
     * replicas and the others replicas that may join by a membership change.
     */
    ScriptedCluster(PaxosConfig config, int nodes) {
        super(nodes, new PaxosRecordCodec(), (id, recovered, now) -> new MultiPaxosCore(config, id, recovered, now));
    }
}
