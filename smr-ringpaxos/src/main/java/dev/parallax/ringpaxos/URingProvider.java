package dev.parallax.ringpaxos;

/**
 * {@code ordering=u-ring}: U-Ring Paxos (seed 003 (Ring Paxos) §3.3.3, Alg. 3), configured by the
 * {@code ring.*} keys ({@link RingKeys}). A {@link java.util.ServiceLoader} service; stateless and
 * thread-safe.
 */
public final class URingProvider extends RingVariantProvider {

    public URingProvider() {
        super(RingPaxos.U_RING, Ring.Kind.U_RING, "U-Ring Paxos (seed 003 (Ring Paxos) §3.3.3, Alg. 3): consensus along a TCP "
                + "ring of f+1 acceptors, every replica a proposer and learner; configured by ring.*.", RingPaxos::uRing);
    }
}
