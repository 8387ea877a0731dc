package dev.parallax.core.runtime;

import dev.parallax.core.spi.Executor;
import dev.parallax.core.stage.ThreadPlacement;

/**
 * An {@link Executor} that needs the replica's own channels and logs, not only the delivered
 * commands: S-SMR's executor (seed 004 (S-SMR) §IV) sends signals and the values a command reads to
 * the replicas of the other partitions on a channel of the replica port, and logs the remote values
 * each command read so that a restart re-executes it identically.
 *
 * <p>{@link dev.parallax.core.replica.Replica#start} calls {@link #bind} once, on the thread that
 * starts the replica, after the ordering protocol's {@link OrderingProtocol#create} and before
 * {@link Executor#start}; the context is valid only during the call (what it returns — transports,
 * logs — stays valid and is the executor's to close). An executor used outside a replica (tests)
 * may be started unbound if it documents so.
 */
public interface ReplicaBoundExecutor extends Executor {
    /** Opens what this executor needs from the replica: channels, logs, meters, the clock. */
    void bind(OrderingContext context);

    /**
     * The placement a replica running this executor takes when its configuration says
     * {@link ThreadPlacement#AUTO}, on a machine with {@code cores} available processors. By default
     * {@code AUTO}'s own rule ({@link ThreadPlacement#resolve}); an executor whose replicas measured
     * faster under another placement says so here. Called once, before {@link #bind}; must not
     * block.
     *
     * @param cores the available processors
     * @return {@link ThreadPlacement#STAGED} or {@link ThreadPlacement#COMPACT}
     */
    default ThreadPlacement autoPlacement(int cores) {
        return ThreadPlacement.AUTO.resolve(cores);
    }
}
