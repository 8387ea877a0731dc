package dev.parallax.bench.systems.jgroupsraft;

import dev.parallax.bench.systems.framed.FramedClient;
import dev.parallax.core.client.CommandInvoker;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link FramedClient} connection to a jgroups-raft front end, decoding each {@link RaftReply}:
 * the future completes with the state machine's reply, or exceptionally with
 * {@link RaftCommandFailedException} when the member reported a failure.
 *
 * <p>Threads: {@link #invoke} from any thread, never blocking; futures complete on the connection's
 * event loop.
 */
public final class RaftFramedInvoker implements CommandInvoker, AutoCloseable {
    private final FramedClient client;

    /** @param client the connection (owned from now on: {@link #close} closes it) */
    public RaftFramedInvoker(FramedClient client) {
        this.client = client;
    }

    @Override
    public CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
        return client.invoke(command).thenApply(RaftReply::decode);
    }

    /** Closes the connection; outstanding commands fail. Blocks until closed. */
    @Override
    public void close() {
        client.close();
    }
}
