package dev.parallax.ringpaxos;

import dev.parallax.core.config.KeyTable;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.runtime.OrderingProvider;

import java.util.List;
import java.util.function.Function;

/**
 * What the two Ring Paxos variants' providers share: the {@code ring.*} table, a protocol built
 * from {@link RingKeys#config} for the variant's {@link Ring.Kind} (each value, the checks across
 * keys, and for M-Ring the datagram group).
 *
 * <p>Stateless and thread-safe; {@link #create} builds a new, unstarted protocol on each call and
 * does not block.
 */
abstract class RingVariantProvider implements OrderingProvider {

    private final String name;
    private final Ring.Kind kind;
    private final String summary;
    private final Function<RingConfig, OrderingProtocol> protocol;

    RingVariantProvider(String name, Ring.Kind kind, String summary, Function<RingConfig, OrderingProtocol> protocol) {
        this.name = name;
        this.kind = kind;
        this.summary = summary;
        this.protocol = protocol;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String summary() {
        return summary;
    }

    @Override
    public final List<KeyTable> keyTables() {
        return List.of(RingKeys.TABLE);
    }

    @Override
    public final OrderingProtocol create(Context context) {
        return protocol.apply(RingKeys.config(context.settings(), context.members(), kind));
    }
}
