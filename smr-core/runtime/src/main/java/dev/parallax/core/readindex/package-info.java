/**
 * Read-index and leader leases (Raft thesis §6.4, §6.4.1) for any ordering whose leader holds an
 * epoch that acceptors promise and never lower: {@link dev.parallax.core.readindex.ReadIndexRounds}
 * applies the rules, a protocol core supplies its leadership, member history and messages. Pure:
 * no threads, clocks or I/O; called on the owning core's driver thread.
 */
package dev.parallax.core.readindex;
