/**
 * Batching of client commands (seed 000 §III-A, §V-C1): the wire form of a batch and the pure
 * policy that decides when a batch closes. Shared by every ordering protocol.
 */
package dev.parallax.core.batch;
