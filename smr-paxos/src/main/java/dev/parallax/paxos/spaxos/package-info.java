/**
 * S-Paxos (seed 002 (S-Paxos) §IV): client batches are disseminated by every replica and made
 * stable (held by f+1 replicas) by {@link dev.parallax.paxos.spaxos.DisseminationCore} (channel
 * {@code spaxos-dissem}), while the unchanged Multi-Paxos core orders only their ids (channel
 * {@code spaxos-order}). Both are deterministic step functions composed on one protocol thread.
 * See docs/protocols/s-paxos.md.
 */
package dev.parallax.paxos.spaxos;
