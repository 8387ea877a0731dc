/**
 * A {@link dev.parallax.core.spi.DurableLog} kept in memory: what a replica uses without a data
 * directory and what the simulator gives every node. JDK only, so the simulator needs neither
 * Chronicle nor Netty; the durable implementation is {@code dev.parallax.core.log} in the replica
 * module.
 */
package dev.parallax.core.log.memory;
