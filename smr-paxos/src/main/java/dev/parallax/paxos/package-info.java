/**
 * Multi-Paxos as in JPaxos (seed 000; PROTOCOLS.md §1): views with leader {@code v mod n}, Phase 1
 * once per view for every open instance, pipelined Phase 2 with at most WND instances in flight,
 * batching, decisions learned by every replica, view change on suspicion, retransmission and
 * catch-up.
 *
 * <p>{@link dev.parallax.paxos.MultiPaxosCore} is a deterministic step function (no threads,
 * clocks, IO or randomness); the roles it composes are {@link dev.parallax.paxos.Acceptor},
 * {@link dev.parallax.paxos.Learner}, {@link dev.parallax.paxos.Proposer},
 * {@link dev.parallax.paxos.ViewMonitor}, {@link dev.parallax.paxos.CatchUp}, and the pieces of its
 * own dispatch: {@code ViewChanges}, {@code LeaderContact}, {@code Heartbeats}, {@code PaxosPhases},
 * {@code LeaderAdmin} and {@code RecoveryAnswers}. See docs/protocols/multi-paxos.md.
 */
package dev.parallax.paxos;
