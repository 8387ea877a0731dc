package dev.parallax.core.testkit.smr;

import dev.parallax.core.testkit.SimNode;

import java.util.Map;

/**
 * What a protocol-independent simulation harness ({@link AmnesiaPlan}, convergence checks) reads of
 * a simulated replica, whatever ordering protocol it runs (Multi-Paxos, S-Paxos, Ring Paxos).
 *
 * <p>Not thread-safe: implementations are owned by the simulation thread and never block.
 */
public interface SmrNode extends SimNode<Object> {
    /**
     * Whether the replica still recovers from amnesia (it lost synced records in a crash and must not
     * take part in decisions yet); {@link AmnesiaPlan} crashes nobody meanwhile.
     */
    boolean recovering();

    /** The next instance this replica executes: equal at every replica once they converged. */
    long applied();

    /** Whether nothing decided is held back here (for example no decided instance waits for a body). */
    default boolean settled() {
        return true;
    }

    /** The state machine's data. */
    Map<String, String> state();
}
