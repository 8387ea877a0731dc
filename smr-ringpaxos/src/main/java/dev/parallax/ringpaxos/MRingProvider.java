package dev.parallax.ringpaxos;

/**
 * {@code ordering=m-ring}: M-Ring Paxos (seed 003 (Ring Paxos) §3.3.2, Alg. 2), configured by the
 * {@code ring.*} and {@code mring.*} keys ({@link RingKeys}). A {@link java.util.ServiceLoader}
 * service; stateless and thread-safe.
 */
public final class MRingProvider extends RingVariantProvider {

    public MRingProvider() {
        super(RingPaxos.M_RING, Ring.Kind.M_RING, "M-Ring Paxos (seed 003 (Ring Paxos) §3.3.2, Alg. 2): Phase 2A and decisions "
                + "by IP multicast to every replica, Phase 2B along a ring of f+1 acceptors; configured by ring.* and mring.*.",
                RingPaxos::mRing);
    }
}
