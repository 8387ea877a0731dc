package dev.parallax.bench.systems.jgroupsraft;

import dev.parallax.bench.systems.framed.FramedServer;
import io.netty.buffer.ByteBuf;
import org.jgroups.raft.Settable;

import java.util.ArrayDeque;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The framed front end of one client connection to a jgroups-raft member: each command frame
 * becomes {@code setAsync(command)} on the member's {@link Settable} (the {@code REDIRECT} protocol,
 * which hands commands to RAFT on the leader and forwards them from followers), and each outcome
 * goes back as a {@link RaftReply}.
 *
 * <p>The framed protocol answers in command order. RAFT completes a leader's futures in log order,
 * but a command refused at submission fails at once, ahead of earlier commands still in flight; so
 * outcomes queue here and leave strictly in order.
 *
 * <p>Threads: {@link #onCommand} on the connection's event loop; completions on RAFT's threads.
 * The queue is guarded by this object's monitor. Never blocks beyond that monitor.
 */
public final class RaftFrontEnd implements FramedServer.Handler {
    private final Settable raft;
    private final ArrayDeque<CompletableFuture<byte[]>> pending = new ArrayDeque<>();

    /** @param raft the member's entry point, usually {@code RaftHandle} */
    public RaftFrontEnd(Settable raft) {
        this.raft = raft;
    }

    @Override
    public void onCommand(ByteBuf command, FramedServer.Replies replies) {
        byte[] bytes = new byte[command.readableBytes()];
        command.readBytes(bytes);
        CompletableFuture<byte[]> outcome;
        try {
            outcome = raft.setAsync(bytes, 0, bytes.length);
        } catch (Exception e) {
            outcome = CompletableFuture.failedFuture(e);
        }
        synchronized (this) {
            pending.add(outcome);
        }
        outcome.whenComplete((reply, error) -> drain(replies));
    }

    private void drain(FramedServer.Replies replies) {
        synchronized (this) {
            CompletableFuture<byte[]> head;
            while ((head = pending.peek()) != null && head.isDone()) {
                pending.poll();
                replies.reply(encode(head, replies));
            }
        }
    }

    private static ByteBuf encode(CompletableFuture<byte[]> done, FramedServer.Replies replies) {
        try {
            return RaftReply.ok(done.getNow(null), replies);
        } catch (CompletionException e) {
            return RaftReply.error(e.getCause() != null ? e.getCause() : e, replies);
        } catch (CancellationException e) {
            return RaftReply.error(e, replies);
        }
    }
}
