package dev.parallax.paxos.spaxos;

import dev.parallax.core.runtime.Channels;
import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.runtime.OrderingProtocol;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.paxos.PaxosMessage;
import dev.parallax.paxos.PaxosMessageCodec;

import java.util.Objects;

/**
 * S-Paxos (seed 002 (S-Paxos) §IV) as a replica's ordering protocol:
 * {@code Replica.builder().ordering(SPaxos.protocol(SPaxosConfig.builder(3).build()))}. Every
 * replica takes clients (no redirect); one runtime runs {@link SPaxosCore} over two channels of the
 * replica port joined by {@link Channels#union} into one transport of {@link SPaxosWire}s —
 * {@value #DISSEMINATION_CHANNEL} (the {@link DisseminationMessage}s, {@link DisseminationCodec}) and
 * {@value #ORDERING_CHANNEL} (the {@link PaxosMessage}s, {@code PaxosMessageCodec}; the route unwraps
 * each {@link SPaxosWire.Ordering} before encoding and wraps what it decodes, so the bytes are the
 * bare message's) — and one log, {@value #LOG}.
 *
 * <p>Immutable and thread-safe.
 */
public final class SPaxos implements OrderingProtocol {
    /** The replica-port channel of the dissemination layer. */
    public static final String DISSEMINATION_CHANNEL = "spaxos-dissem";
    /** The replica-port channel of the ordering layer (Multi-Paxos on id lists). */
    public static final String ORDERING_CHANNEL = "spaxos-order";
    /** The named log (directory under the data directory) of both layers. */
    public static final String LOG = "spaxos";

    private final SPaxosConfig config;

    private SPaxos(SPaxosConfig config) {
        this.config = Objects.requireNonNull(config);
    }

    /** S-Paxos with {@code config}; its member count must match the replica's cluster. */
    public static SPaxos protocol(SPaxosConfig config) {
        return new SPaxos(config);
    }

    /** S-Paxos with every default, for a cluster of {@code members}. */
    public static SPaxos protocol(int members) {
        return new SPaxos(SPaxosConfig.builder(members).build());
    }

    /** The configuration. */
    public SPaxosConfig config() {
        return config;
    }

    @Override
    public String name() {
        return "s-paxos";
    }

    /** The client batch size (cbsz) of the dissemination settings. */
    @Override
    public int batchBytes() {
        return config.batchBytes();
    }

    /** The client batch time-out of the dissemination settings. */
    @Override
    public long batchTimeoutNanos() {
        return config.batchTimeoutNanos();
    }

    @Override
    public AtomicBroadcast create(OrderingContext context) {
        if (context.config().members().size() != config.members()) {
            throw new IllegalArgumentException("s-paxos configured for " + config.members() + " members, cluster has "
                    + context.config().members().size());
        }
        return SPaxosBroadcast.builder().config(config).self(context.config().id())
                .transport(Channels.union(SPaxosWire.class,
                        Channels.Route.of(DisseminationMessage.class,
                                context.transport(DISSEMINATION_CHANNEL, new DisseminationCodec(config.members()))),
                        Channels.Route.wrapping(SPaxosWire.Ordering.class,
                                context.transport(ORDERING_CHANNEL, new PaxosMessageCodec()),
                                SPaxosWire.Ordering::message, SPaxosWire.Ordering::new)))
                .log(context.durableLog(LOG)).clock(context.clock())
                .options(RuntimeOptions.forReplica(context).build())
                .build();
    }
}
