package dev.parallax.ringpaxos;

import dev.parallax.core.config.KeyTable;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.runtime.OrderingProvider;

import java.util.List;

/**
 * {@code ordering=u-ring}: U-Ring Paxos (seed 003 (Ring Paxos) §3.3.3, Alg. 3), configured by the
 * {@code ring.*} keys ({@link RingKeys}). A {@link java.util.ServiceLoader} service.
 *
 * <p>Stateless and thread-safe; {@link #create} builds a new, unstarted protocol on each call and
 * does not block.
 */
public final class URingProvider implements OrderingProvider {

    @Override
    public String name() {
        return RingPaxos.U_RING;
    }

    @Override
    public String summary() {
        return "U-Ring Paxos (seed 003 (Ring Paxos) §3.3.3, Alg. 3): consensus along a TCP ring of f+1 acceptors, "
                + "every replica a proposer and learner; configured by ring.*.";
    }

    @Override
    public List<KeyTable> keyTables() {
        return List.of(RingKeys.TABLE);
    }

    @Override
    public OrderingProtocol create(Context context) {
        return RingPaxos.uRing(RingKeys.config(context.settings(), context.members(), Ring.Kind.U_RING));
    }

    /**
     * Checks the {@code ring.*} keys (each value and the checks across keys); the member count
     * (1..{@value RingConfig#MAX_MEMBERS}) only when the cluster file names this protocol.
     */
    @Override
    public void validate(Context context) {
        RingKeys.config(context.settings(), RingKeys.membersToCheck(context, name()), Ring.Kind.U_RING);
    }
}
