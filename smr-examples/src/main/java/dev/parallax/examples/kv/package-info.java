/**
 * A replicated key-value store that speaks the Redis protocol (RESP2): {@link
 * dev.parallax.examples.kv.KvStateMachine} is the deterministic service every replica runs, {@link
 * dev.parallax.examples.kv.KvCommand} and {@link dev.parallax.examples.kv.KvReply} its compact binary
 * command and reply formats, and {@link dev.parallax.examples.kv.RespServer} the Netty front end that
 * unmodified Redis clients ({@code redis-cli}, {@code redis-benchmark}, Jedis) talk to. The front end
 * sends data commands through a {@link dev.parallax.core.client.CommandInvoker}; in a cluster that is
 * the replicated client, which finds the leader itself, so any replica can serve any connection.
 */
package dev.parallax.examples.kv;
