/**
 * Pieces the examples' Netty front ends share (the Redis front end {@link dev.parallax.examples.kv.RespServer}
 * and Volery's ZooKeeper front end {@link dev.parallax.examples.volery.zk.ZkServer}): the ordered,
 * bounded reply queue of a pipelining connection ({@link dev.parallax.examples.net.OrderedReplies}),
 * the order between a connection's queries and its ordered commands
 * ({@link dev.parallax.examples.net.ReadWriteGate}), the life cycle of the TCP server
 * ({@link dev.parallax.examples.net.TcpFrontEnd}) and the unwrapping
 * of a failed future's cause ({@link dev.parallax.examples.net.Failures}).
 */
package dev.parallax.examples.net;
