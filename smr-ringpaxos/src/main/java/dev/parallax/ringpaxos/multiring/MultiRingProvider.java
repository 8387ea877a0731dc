package dev.parallax.ringpaxos.multiring;

import dev.parallax.core.config.KeyTable;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.runtime.OrderingProvider;
import dev.parallax.ringpaxos.RingKeys;

import java.util.List;
import java.util.Optional;

/**
 * {@code ordering=multi-ring}: Multi-Ring Paxos (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5
 * §5.2, Alg. 1), configured by the {@code multiring.*} keys ({@link MultiRingKeys}) and the
 * {@code ring.*} / {@code mring.*} keys every ring shares ({@link RingKeys}); an ordering with
 * groups, k = {@code multiring.rings}. With a partitioned executor (S-SMR, seed 004 (S-SMR) §VI)
 * each partition's ring runs over that partition's replicas. A {@link java.util.ServiceLoader}
 * service.
 *
 * <p>Stateless and thread-safe; {@link #create} builds a new, unstarted protocol on each call and
 * does not block.
 */
public final class MultiRingProvider implements OrderingProvider {

    @Override
    public String name() {
        return MultiRing.NAME;
    }

    @Override
    public String summary() {
        return "Multi-Ring Paxos (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5 §5.2, Alg. 1): k rings order groups "
                + "0..k-1 and a global ring the commands to several groups, every replica merging them M values per ring "
                + "in turn; configured by multiring.*, ring.* and mring.*.";
    }

    @Override
    public List<KeyTable> keyTables() {
        return List.of(RingKeys.TABLE, MultiRingKeys.TABLE);
    }

    @Override
    public OrderingProtocol create(Context context) {
        return MultiRing.protocol(MultiRingKeys.config(context.settings(), context.members(), context.partitioned()));
    }

    @Override
    public Optional<String> groupsKey() {
        return Optional.of(MultiRingKeys.RINGS.name());
    }

    /** k, {@code multiring.rings}, checked with the whole configuration. */
    @Override
    public int groups(Context context) {
        return MultiRingKeys.config(context.settings(), context.members(), context.partitioned()).rings();
    }
}
