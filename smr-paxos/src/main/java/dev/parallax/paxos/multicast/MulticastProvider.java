package dev.parallax.paxos.multicast;

import dev.parallax.core.config.ConfigKey;
import dev.parallax.core.config.KeyTable;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.runtime.OrderingProvider;
import dev.parallax.paxos.PaxosKeys;

import java.util.List;
import java.util.Optional;

/**
 * {@code ordering=multicast}: the reference atomic multicast ({@link MulticastOrdering}; seed 003
 * (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1 with Multi-Paxos in place of the rings): one
 * Multi-Paxos instance per group ({@code multicast.groups}) and, with more than one, a global one,
 * merged deterministically at every replica; every stream configured by {@code paxos.*}. A
 * {@link java.util.ServiceLoader} service; stateless and thread-safe.
 */
public final class MulticastProvider implements OrderingProvider {

    /** {@code multicast.groups}: k, the groups. */
    public static final ConfigKey<Integer> GROUPS = ConfigKey.integer("multicast.groups", 2, Integer.MIN_VALUE, Integer.MAX_VALUE,
            "k, the groups of ordering=multicast: one Multi-Paxos instance per group and, with k > 1, a global one (1..16).")
            .andCheck(k -> {
                if (k < 1 || k > MulticastOrdering.MAX_GROUPS) {
                    throw new IllegalArgumentException("multicast.groups must be 1.." + MulticastOrdering.MAX_GROUPS
                            + " (groups of ordering=" + MulticastOrdering.NAME + "), got " + k);
                }
                return k;
            });

    /** The reference multicast's table. */
    public static final KeyTable TABLE = KeyTable.of("Reference multicast", GROUPS);

    @Override
    public String name() {
        return MulticastOrdering.NAME;
    }

    @Override
    public String summary() {
        return "The reference atomic multicast: one Multi-Paxos instance per group and a global one, merged (seed 003 ch. 5).";
    }

    @Override
    public List<KeyTable> keyTables() {
        return List.of(PaxosKeys.TABLE, TABLE);
    }

    @Override
    public Optional<String> groupsKey() {
        return Optional.of(GROUPS.name());
    }

    @Override
    public int groups(Context context) {
        return context.settings().get(GROUPS);
    }

    @Override
    public OrderingProtocol create(Context context) {
        return MulticastOrdering.protocol(PaxosKeys.config(context.settings(), context.members()), groups(context));
    }
}
