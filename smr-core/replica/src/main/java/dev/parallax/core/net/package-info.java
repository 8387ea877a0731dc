/**
 * The Netty edge: the frame format every connection uses, the codec SPI that turns protocol
 * messages into frames, and the replica-to-replica transport. Wire types never leave this package
 * and the codecs; protocol code sees typed messages only.
 *
 * <p>Frame: {@code length:4 | version:1 | type:1 | body}, big-endian, where {@code length} counts
 * version, type and body. A frame longer than the configured maximum, with an unknown version or
 * type, or whose body does not decode, closes its connection with a logged reason and a metric
 * ({@code parallax.net.bad.frames}); the process keeps serving every other connection.
 */
package dev.parallax.core.net;
