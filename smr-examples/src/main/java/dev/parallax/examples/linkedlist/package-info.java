/**
 * The sharded linked list of seed 001 (§5.2), the early-scheduling benchmark application, as a
 * replicated state machine with its classifier and class map.
 */
package dev.parallax.examples.linkedlist;
