/**
 * Network limits the replication systems are compared against, driven through
 * {@link dev.parallax.bench.systems.framed.FramedClient} like the peers without a client of their
 * own: {@code echo} (one unreplicated server echoing each command: the cost of loopback plus the
 * client) and {@code forwarder} (a leader relaying each read burst of commands to two followers and
 * answering on the first acknowledgement: the least network work a leader-based protocol does).
 */
package dev.parallax.bench.systems.limits;
