package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.multicast.StreamOrdering;
import dev.parallax.ringpaxos.RingWire;

/**
 * Multi-Ring Paxos (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5) as a replica's ordering
 * protocol, named {@value #NAME}: {@code Replica.builder().ordering(MultiRing.protocol(config))}, the
 * {@link StreamOrdering} of a {@link MultiRingPlan}: k group rings and the global ring, laid out by
 * the configuration's {@link MultiRingTopology} (per ring its kind, processes and datagram address,
 * the group → ring mapping). Ring i (0..k-1) runs on the replica-port channel and log
 * {@code ring-<i>}, the global ring on {@code ring-g}; an M-Ring ring also joins the datagram group
 * channel {@code ring-<i>-mcast} (or {@code ring-g-mcast}) at its datagram address (by default the
 * template's {@code mring.group}, port {@code mring.port} + i, the global ring + k). The rings'
 * coordinators sit on different replicas (see {@link RingMulticast#ringMember}). Batches close at
 * the template's {@code ring.batch.bytes} / {@code ring.batch.timeout.ms}, one batch per lane.
 *
 * <p>Stateless; the protocol is immutable and thread-safe.
 */
public final class MultiRing {
    /** The replica-port channel on which a process forwards a message to a ring it does not run. */
    public static final String FORWARD_CHANNEL = "ring-forward";

    /** The protocol name (cluster files: {@code ordering=multi-ring}). */
    public static final String NAME = "multi-ring";

    private MultiRing() {
    }

    /**
     * Multi-Ring Paxos with {@code config}.
     *
     * @throws IllegalArgumentException if a ring's settings are out of range
     */
    public static StreamOrdering<RingWire> protocol(MultiRingConfig config) {
        return StreamOrdering.of(new MultiRingPlan(config));
    }

    /** The channel and log name of ring number {@code index} (k: the global ring). */
    public static String ringName(int index, int rings) {
        return index == rings && rings > 1 ? "ring-g" : "ring-" + index;
    }
}
