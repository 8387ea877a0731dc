/**
 * Failure detection off the protocol thread (a FailureDetector stage, as in JPaxos, seed 000 §V-C3): the transport's IO
 * threads stamp when each peer was last heard from in a {@link dev.parallax.core.liveness.PeerLiveness}
 * (one ordered store per frame, no wakeup), and a {@link dev.parallax.core.liveness.FailureDetector}
 * stage on its own low-frequency thread reads the stamps and hands a suspicion to the protocol stage.
 * The protocol's pure rule decides what counts as too long
 * ({@link dev.parallax.core.liveness.FailureDetector.Rule}), so the simulator and the runtime share it.
 */
package dev.parallax.core.liveness;
