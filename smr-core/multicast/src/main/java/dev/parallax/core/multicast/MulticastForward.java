package dev.parallax.core.multicast;

import java.nio.ByteBuffer;

/**
 * A message {@link StreamMulticast} hands to the process it believes leads {@code stream}, so that
 * a process which does not lead the stream can multicast: the receiver proposes it (or forwards it
 * again to the leader it knows). The envelope is opaque to the transport.
 *
 * @param stream   the stream id the message is to be ordered in
 * @param envelope the encoded message, read-only
 */
public record MulticastForward(int stream, ByteBuffer envelope) {
}
