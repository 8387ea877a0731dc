package dev.parallax.core.spi;

import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.net.MessageCodec;
import dev.parallax.core.stage.WaitStrategy;
import dev.parallax.core.time.Clock;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What a replica gives an {@link OrderingProtocol} to build its {@link AtomicBroadcast} from.
 * Used once, on the thread that starts the replica.
 */
public interface OrderingContext {

    ReplicaConfig config();

    /** A replica-to-replica transport carrying the protocol's messages, encoded by {@code codec}. */
    <M> Transport<M> transport(MessageCodec<M> codec);

    /** The durable log for the protocol's acceptor records. */
    DurableLog durableLog();

    Clock clock();

    MeterRegistry meterRegistry();

    /**
     * Where the protocol reports that this replica needs a snapshot from {@code peer} (the peer
     * trimmed the instances below {@code instance} that this replica lacks). Non-blocking.
     */
    dev.parallax.core.protocol.EffectApplier.SnapshotRequester snapshotRequester();

    /** How the protocol's stage threads wait when idle. */
    WaitStrategy.Factory waitStrategy();
}
