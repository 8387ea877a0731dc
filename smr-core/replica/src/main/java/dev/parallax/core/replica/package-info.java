/**
 * A runnable replica: the staged pipeline of seed 000 §V around an ordering protocol —
 * ClientIO (Netty) → RequestQueue → Batcher → the ordering protocol's stages → ServiceManager →
 * Executor → replies back through the ClientIO thread that owns each connection.
 */
package dev.parallax.core.replica;
