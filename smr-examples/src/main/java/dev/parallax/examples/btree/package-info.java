/**
 * A B+-tree ordered key-value store as a replicated state machine, with a read/write classifier
 * for early scheduling and a C-G function for P-SMR ({@code BTreeRouter}: key ranges as groups).
 */
package dev.parallax.examples.btree;
