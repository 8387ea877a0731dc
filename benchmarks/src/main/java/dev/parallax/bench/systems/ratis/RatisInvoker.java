package dev.parallax.bench.systems.ratis;

import dev.parallax.core.client.CommandInvoker;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Semaphore;

/**
 * One benchmark connection to the Ratis group: a {@link RaftClient} of its own (its own client id,
 * so its own ordered sliding window), used through {@code async().send}. Each command is an opaque
 * write; its reply is the state machine's reply message.
 *
 * <p>Thread-safe. {@link #invoke} never blocks: Ratis's async API blocks the caller once its
 * outstanding-request limit is reached, so this invoker admits at most {@code maxOutstanding}
 * commands itself (the same limit Ratis is configured with) and fails the excess at once.
 */
public final class RatisInvoker implements CommandInvoker, AutoCloseable {
    private final RaftClient client;
    private final int maxOutstanding;
    private final Semaphore permits;
    private volatile boolean closed;

    /**
     * @param client         a client whose {@code raft.client.async.outstanding-requests.max} is at least
     *                       {@code maxOutstanding}; owned (closed) by this invoker
     * @param maxOutstanding commands admitted in flight at once
     */
    public RatisInvoker(RaftClient client, int maxOutstanding) {
        if (maxOutstanding < 1) {
            throw new IllegalArgumentException("maxOutstanding must be >= 1");
        }
        this.client = client;
        this.maxOutstanding = maxOutstanding;
        this.permits = new Semaphore(maxOutstanding);
    }

    /**
     * Sends {@code command} as a Raft write and completes with the state machine's reply (a
     * read-only buffer). Fails with {@link IllegalStateException} if the invoker is closed or
     * {@code maxOutstanding} commands are already in flight, and with Ratis's exception (e.g. a
     * {@code RaftRetryFailureException}) if the group does not commit it.
     */
    @Override
    public CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("Ratis connection closed"));
        }
        if (!permits.tryAcquire()) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException("more than " + maxOutstanding + " commands in flight"));
        }
        CompletableFuture<RaftClientReply> sent;
        try {
            sent = client.async().send(Message.valueOf(ByteString.copyFrom(command.duplicate())));
        } catch (RuntimeException e) {
            permits.release();
            return CompletableFuture.failedFuture(e);
        }
        // The permit is released before the returned future completes, so a caller that issues its
        // next command from a completion callback always finds one free.
        return sent.handle((reply, error) -> {
            permits.release();
            if (error != null) {
                throw error instanceof CompletionException ce ? ce : new CompletionException(error);
            }
            if (!reply.isSuccess()) {
                throw new CompletionException(reply.getException() != null ? reply.getException()
                        : new IllegalStateException("Ratis reply without success: " + reply));
            }
            return reply.getMessage().getContent().asReadOnlyByteBuffer();
        });
    }

    /**
     * Closes the client; commands in flight fail. Blocks while the client's channels close.
     *
     * @throws UncheckedIOException if the client fails to close
     */
    @Override
    public void close() {
        closed = true;
        try {
            client.close();
        } catch (IOException e) {
            throw new UncheckedIOException("closing the Ratis client failed", e);
        }
    }
}
