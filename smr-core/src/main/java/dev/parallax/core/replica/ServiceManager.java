package dev.parallax.core.replica;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.batch.CommandBatch;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.spi.Executor;
import dev.parallax.core.spi.ResultSink;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The ServiceManager (seed 000 §V-D): takes decided batches in order, admits each command through
 * the replicated {@link ClientSessions} (exactly-once, in order per client), hands the admitted
 * ones to the {@link Executor}, records results for duplicates and routes replies to the client's
 * connection.
 *
 * <p>Threads: {@link #deliver} is called by the ordering protocol's delivery thread, one batch at
 * a time; {@link #onResult} by the executor (the same thread for the sequential executor).
 */
final class ServiceManager implements DeliveryListener, ResultSink {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceManager.class);

    private final ClientSessions sessions;
    private final Executor executor;
    private final ReplyRouter router;
    private final Counter executed;
    private final Counter rejected;
    private final Counter duplicates;
    private final Counter malformed;
    private volatile long lastDelivered = -1;

    ServiceManager(ClientSessions sessions, Executor executor, ReplyRouter router, MeterRegistry registry, int replica) {
        this.sessions = sessions;
        this.executor = executor;
        this.router = router;
        String id = Integer.toString(replica);
        this.executed = Counter.builder("parallax.commands.executed").tag("replica", id).register(registry);
        this.rejected = Counter.builder("parallax.commands.rejected")
                .description("commands the state machine threw on").tag("replica", id).register(registry);
        this.duplicates = Counter.builder("parallax.commands.duplicate")
                .description("retried commands answered from the session cache").tag("replica", id).register(registry);
        this.malformed = Counter.builder("parallax.batches.malformed").tag("replica", id).register(registry);
    }

    @Override
    public void deliver(long sequence, ByteBuffer value) throws InterruptedException {
        lastDelivered = sequence;
        // The buffer is valid only during this call; executors may keep commands longer.
        ByteBuffer copy = ByteBuffer.allocate(value.remaining()).put(value.duplicate()).flip();
        List<Command> commands;
        try {
            commands = CommandBatch.decode(copy);
        } catch (IllegalArgumentException e) {
            malformed.increment();
            LOG.error("decided value {} is not a command batch; skipped on every replica alike: {}", sequence, e.getMessage());
            return;
        }
        for (Command c : commands) {
            switch (sessions.admit(c.id())) {
                case EXECUTE -> executor.execute(c);
                case DUPLICATE -> {
                    duplicates.increment();
                    CommandResult r = sessions.cached(c.id());
                    if (r != null) {
                        router.reply(c.id(), r);
                    }
                }
                case GAP -> router.retryFrom(c.id(), sessions.next(c.id().clientId()));
                case EXPIRED -> router.expired(c.id());
            }
        }
    }

    @Override
    public void onResult(Command command, CommandResult result) {
        executed.increment();
        if (result.isError()) {
            rejected.increment();
        }
        sessions.store(command.id(), result);
        router.reply(command.id(), result);
    }

    /** The last delivered position of the total order. */
    long lastDelivered() {
        return lastDelivered;
    }
}
