package dev.parallax.core.testkit.smr;

import dev.parallax.core.spi.ByteBufferWire;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.testkit.Simulation;

import java.nio.charset.StandardCharsets;
import java.util.function.ToIntFunction;

/**
 * Bytes each replica hands to the network in a simulation, measured as the production wire would
 * carry them: a protocol message is its codec's encoding ({@link ByteBufferWire}) plus the frame
 * header ({@link #FRAME_HEADER} bytes, the client and replica wire's frame header); a client message is its fields plus the header. Fed by
 * {@link Simulation#observeSends} (every send, before any loss), so it counts what a replica
 * sends, not what arrives. For the load-balance check of seed 002 (S-Paxos) §V-A (the leader is
 * no longer the bottleneck: with clients spread, every replica sends about as much).
 *
 * <p>Owned by the simulation thread.
 */
public final class WireBytes implements Simulation.SendObserver<Object> {
    /** Bytes of a frame header on the wire: length:4, version:1, type:1; a cluster-testkit test checks it against the wire codec. */
    public static final int FRAME_HEADER = 6;
    private final int replicas;
    private final ToIntFunction<Object> protocolSize;
    private final long[] protocol;
    private final long[] client;

    /**
     * @param replicas     nodes {@code 0 .. replicas-1} are counted (clients are not)
     * @param protocolSize the encoded size (no frame header) of a replica-to-replica message; see {@link #codecSize}
     */
    public WireBytes(int replicas, ToIntFunction<Object> protocolSize) {
        this.replicas = replicas;
        this.protocolSize = protocolSize;
        this.protocol = new long[replicas];
        this.client = new long[replicas];
    }

    /** The body length {@code codec} encodes {@code message} to. */
    public static <M> int codecSize(MessageCodec<M> codec, M message) {
        return ByteBufferWire.encode(codec, message).body().remaining();
    }

    @Override
    public void sent(int from, int to, Object message) {
        if (from < 0 || from >= replicas || from == to) {
            return;
        }
        if (message instanceof ClientMessage m) {
            client[from] += FRAME_HEADER + clientSize(m);
        } else {
            protocol[from] += FRAME_HEADER + protocolSize.applyAsInt(message);
        }
    }

    /** Bytes replica {@code r} sent to other replicas. */
    public long protocolBytes(int r) {
        return protocol[r];
    }

    /** Bytes replica {@code r} sent to clients. */
    public long clientBytes(int r) {
        return client[r];
    }

    /** Every byte replica {@code r} sent. */
    public long total(int r) {
        return protocol[r] + client[r];
    }

    /** The most any replica sent over the least (infinite if one sent nothing). */
    public double maxOverMin() {
        long max = 0;
        long min = Long.MAX_VALUE;
        for (int r = 0; r < replicas; r++) {
            max = Math.max(max, total(r));
            min = Math.min(min, total(r));
        }
        return min == 0 ? Double.POSITIVE_INFINITY : (double) max / min;
    }

    private static int clientSize(ClientMessage m) {
        if (m instanceof ClientMessage.Reply r) {
            return 16 + 4 + r.output().getBytes(StandardCharsets.UTF_8).length;
        } else if (m instanceof ClientMessage.RetryFrom) {
            return 16 + 8;
        } else if (m instanceof ClientMessage.Request q) {
            return 16 + 4 + q.command().payload().remaining();
        }
        return 4; // NotLeader

    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < replicas; r++) {
            sb.append(r).append(": ").append(protocol[r]).append(" B to replicas + ").append(client[r])
                    .append(" B to clients; ");
        }
        return sb.append(String.format("max/min %.2f", maxOverMin())).toString();
    }
}
