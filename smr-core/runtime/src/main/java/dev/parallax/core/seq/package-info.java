/**
 * Sequence-number bookkeeping shared by the protocols that number messages per origin:
 * {@link dev.parallax.core.seq.SequenceWindow} is the bounded "first time or duplicate" record of
 * one origin's stream, used by the multicast's {@code OriginSequences} and by S-Paxos'
 * {@code ExecutedIds} (seed 002 (S-Paxos) §IV-C, footnote 5).
 */
package dev.parallax.core.seq;
