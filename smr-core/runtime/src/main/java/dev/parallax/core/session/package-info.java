/**
 * Client sessions: the replicated table that makes execution exactly-once and in order per client,
 * with a bounded reply cache. Every replica's executor and the simulator's service share it, so a
 * session rule is written once and checked in simulation.
 */
package dev.parallax.core.session;
