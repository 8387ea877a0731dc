package dev.parallax.paxos.spaxos;

import dev.parallax.core.config.KeyTable;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.runtime.OrderingProvider;
import dev.parallax.paxos.PaxosKeys;

import java.util.List;

/**
 * {@code ordering=s-paxos}: S-Paxos (seed 002 (S-Paxos)): every replica takes clients and
 * disseminates their batches, the Multi-Paxos leader orders batch ids; configured by
 * {@code spaxos.*} ({@link SPaxosKeys}) and, for its ordering layer, {@code paxos.*}. A
 * {@link java.util.ServiceLoader} service; stateless and thread-safe.
 */
public final class SPaxosProvider implements OrderingProvider {

    @Override
    public String name() {
        return "s-paxos";
    }

    @Override
    public String summary() {
        return "S-Paxos (seed 002): every replica takes clients and disseminates batches, the leader orders their ids.";
    }

    @Override
    public List<KeyTable> keyTables() {
        return List.of(PaxosKeys.TABLE, SPaxosKeys.TABLE);
    }

    @Override
    public OrderingProtocol create(Context context) {
        return SPaxos.protocol(SPaxosKeys.config(context.settings(), context.members()));
    }
}
