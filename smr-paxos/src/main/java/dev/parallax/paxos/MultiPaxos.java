package dev.parallax.paxos;

import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.runtime.RuntimeOptions;

import java.util.Objects;

/**
 * Multi-Paxos as a replica's ordering protocol:
 * {@code Replica.builder().ordering(MultiPaxos.protocol(PaxosConfig.builder(3).build()))}.
 * Immutable and thread-safe.
 */
public final class MultiPaxos implements OrderingProtocol {
    /** The replica-port channel Multi-Paxos' messages travel on. */
    public static final String CHANNEL = "paxos";
    private final PaxosConfig config;

    private MultiPaxos(PaxosConfig config) {
        this.config = Objects.requireNonNull(config);
    }

    /** Multi-Paxos with {@code config}; its member count must match the replica's cluster. */
    public static MultiPaxos protocol(PaxosConfig config) {
        return new MultiPaxos(config);
    }

    /** Multi-Paxos with every default, for a cluster of {@code members}. */
    public static MultiPaxos protocol(int members) {
        return new MultiPaxos(PaxosConfig.builder(members).build());
    }

    @Override
    public String name() {
        return "multi-paxos";
    }

    /** BSZ from the {@link PaxosConfig} (seed 000 §V-C1: the Batcher closes batches at BSZ). */
    @Override
    public int batchBytes() {
        return config.batchBytes();
    }

    /** The batch time-out from the {@link PaxosConfig}. */
    @Override
    public long batchTimeoutNanos() {
        return config.batchTimeoutNanos();
    }

    @Override
    public AtomicBroadcast create(OrderingContext context) {
        if (context.config().members().size() != config.members()) {
            throw new IllegalArgumentException("paxos configured for " + config.members() + " members, cluster has "
                    + context.config().members().size());
        }
        return PaxosBroadcast.builder().config(config).self(context.config().id())
                .transport(context.transport(CHANNEL, new PaxosMessageCodec()))
                .log(context.durableLog(OrderingContext.MAIN_LOG)).clock(context.clock())
                .options(RuntimeOptions.forReplica(context).build())
                .build();
    }
}
