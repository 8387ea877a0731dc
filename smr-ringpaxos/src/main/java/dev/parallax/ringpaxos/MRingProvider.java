package dev.parallax.ringpaxos;

import dev.parallax.core.config.KeyTable;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.runtime.OrderingProvider;

import java.util.List;

/**
 * {@code ordering=m-ring}: M-Ring Paxos (seed 003 (Ring Paxos) §3.3.2, Alg. 2), configured by the
 * {@code ring.*} and {@code mring.*} keys ({@link RingKeys}). A {@link java.util.ServiceLoader}
 * service.
 *
 * <p>Stateless and thread-safe; {@link #create} builds a new, unstarted protocol on each call and
 * does not block.
 */
public final class MRingProvider implements OrderingProvider {

    @Override
    public String name() {
        return RingPaxos.M_RING;
    }

    @Override
    public String summary() {
        return "M-Ring Paxos (seed 003 (Ring Paxos) §3.3.2, Alg. 2): Phase 2A and decisions by IP multicast to every "
                + "replica, Phase 2B along a ring of f+1 acceptors; configured by ring.* and mring.*.";
    }

    @Override
    public List<KeyTable> keyTables() {
        return List.of(RingKeys.TABLE);
    }

    @Override
    public OrderingProtocol create(Context context) {
        return RingPaxos.mRing(RingKeys.config(context.settings(), context.members(), Ring.Kind.M_RING));
    }

    /**
     * Checks the {@code ring.*} and {@code mring.*} keys (each value, the checks across keys and the
     * datagram group); the member count (1..{@value RingConfig#MAX_MEMBERS}) only when the cluster
     * file names this protocol.
     */
    @Override
    public void validate(Context context) {
        RingKeys.config(context.settings(), RingKeys.membersToCheck(context, name()), Ring.Kind.M_RING);
    }
}
