/**
 * A B+-tree ordered key-value store as a replicated state machine, with a read/write classifier
 * for early scheduling.
 */
package dev.parallax.examples.btree;
