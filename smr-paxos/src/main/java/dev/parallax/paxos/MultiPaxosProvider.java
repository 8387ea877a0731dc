package dev.parallax.paxos;

import dev.parallax.core.config.KeyTable;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.runtime.OrderingProvider;

import java.util.List;

/**
 * {@code ordering=multi-paxos}: Multi-Paxos with a stable leader (seed 000 (JPaxos staged
 * replica)), configured by {@code paxos.*} ({@link PaxosKeys}). A {@link java.util.ServiceLoader}
 * service; stateless and thread-safe.
 */
public final class MultiPaxosProvider implements OrderingProvider {

    @Override
    public String name() {
        return "multi-paxos";
    }

    @Override
    public String summary() {
        return "Multi-Paxos with a stable leader (seed 000, JPaxos staged replica); clients are redirected to the leader.";
    }

    @Override
    public List<KeyTable> keyTables() {
        return List.of(PaxosKeys.TABLE);
    }

    @Override
    public OrderingProtocol create(Context context) {
        return MultiPaxos.protocol(PaxosKeys.config(context.settings(), context.members()));
    }
}
