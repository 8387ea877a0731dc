package dev.parallax.paxos.sim;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvOp;
import dev.parallax.core.testkit.NodeContext;
import dev.parallax.core.testkit.SimNode;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * A closed-loop client: one command outstanding, retried with the same (client, sequence) on
 * timeout at the next replica, following leader redirects; records every operation's invoke and
 * return (virtual) times for the linearizability checker. With no think time it starts its next
 * operation the moment a reply arrives, so it keeps the cluster loaded until its workload stops.
 */
final class SimClient implements SimNode<Object> {
    private final NodeContext<Object> ctx;
    private final int replicas;
    private final long clientId;
    private final ClientWorkload workload;
    private final HistoryRecorder<KvOp, String> history;
    private final long timeout;
    private final long thinkTime;
    private long sequence;
    private int target;
    private Command outstanding;
    private HistoryRecorder.Invocation<KvOp, String> invocation;
    private long retryAt;
    private boolean rotateOnRetry;
    private long readyAt;

    SimClient(NodeContext<Object> ctx, int replicas, ClientWorkload workload, HistoryRecorder<KvOp, String> history,
              long timeout, long thinkTime, long seed) {
        this.ctx = ctx;
        this.replicas = replicas;
        this.clientId = ctx.id();
        this.workload = workload;
        this.history = history;
        this.timeout = timeout;
        this.thinkTime = thinkTime;
        this.target = new SplittableRandom(seed).nextInt(replicas);
    }

    /** Whether the workload is over and no operation is outstanding. */
    boolean done() {
        return outstanding == null && workload.exhausted(ctx.now());
    }

    /** Whether an operation is waiting for its reply. */
    boolean hasOutstanding() {
        return outstanding != null;
    }

    @Override
    public void onTick() {
        long now = ctx.now();
        if (outstanding == null) {
            if (now >= readyAt) {
                startNext();
            }
        } else if (now >= retryAt) {
            if (rotateOnRetry) {
                target = (target + 1) % replicas;
            }
            send();
        }
    }

    private void startNext() {
        KvOp op = workload.next(ctx.now());
        if (op != null) {
            outstanding = new Command(new CommandId(clientId, ++sequence), ByteBuffer.wrap(KvCommands.encode(op)));
            invocation = history.invoke((int) clientId, op);
            send();
        }
    }

    /** Sends the outstanding command to the target; without an answer, the next replica is tried after the timeout. */
    private void send() {
        retryAt = ctx.now() + timeout;
        rotateOnRetry = true;
        ctx.send(target, new ClientMessage.Request(outstanding));
    }

    @Override
    public void onMessage(int from, Object message) {
        if (outstanding == null) {
            return;
        }
        if (message instanceof ClientMessage.Reply r && r.id().equals(outstanding.id())) {
            history.ok(invocation, KvCommands.NONE.equals(r.output()) ? null : r.output());
            outstanding = null;
            readyAt = ctx.now() + thinkTime;
            if (thinkTime == 0) {
                startNext();
            }
        } else if (message instanceof ClientMessage.NotLeader nl && from == target) {
            target = nl.hint() == from ? (target + 1) % replicas : nl.hint();
            retryAt = ctx.now() + timeout / 10; // soon, not at once: no redirect storms
            rotateOnRetry = false;
        }
    }
}
