package dev.parallax.core.testkit.smr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvOp;
import dev.parallax.core.testkit.NodeContext;
import dev.parallax.core.testkit.SimNode;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.SplittableRandom;

/**
 * A simulated client that behaves like the production {@code SmrClient} under a closed-loop
 * caller: the caller has one operation at a time and waits for it at most {@code invokeTimeout}
 * (virtual time), then gives up and goes on with its next operation.
 *
 * <p>As in {@code SmrClient}, a command is numbered when it is sent, and a sent
 * command whose caller gave up is not forgotten: it keeps its sequence number and stays
 * outstanding, resent in order with the others, until a replica answers it. The caller's history
 * records it with an unknown outcome ({@link HistoryRecorder#unknown}, what chaos'
 * {@code HistoryClient} records for a time-out): it may have executed, or may still. Its next
 * operation is sent with the next sequence number while the old one is still in flight, so the
 * replicas' sessions see real gaps (a later command decided before an earlier one) and answer them
 * with {@link ClientMessage.RetryFrom}, on which the client resends from the gap in order
 * (go-back-N). An operation that found the window full of unanswered commands for its whole
 * time-out was never sent and is recorded as failed ({@link HistoryRecorder#failed}: it did not
 * execute), as {@code SmrClient} fails it with a plain {@code ClusterUnavailableException}.
 *
 * <p>The window spans sequence numbers: a command is sent only if its sequence is less than
 * {@code window} above the oldest unanswered one. {@code SmrClient}'s window counts commands, and
 * its TCP connection never loses one reply and delivers the next; here every message may be lost
 * alone, so a client that counted could see later commands answered while the oldest one's reply
 * was lost, run ahead, and find that reply gone from the replicas' cache ({@code window} must not
 * exceed {@link SimService#REPLY_WINDOW}).
 *
 * <p>Without an answer for {@code retryTimeout} the client moves to the next replica and resends
 * every outstanding command in order; a redirect names the replica to try. With no think time it
 * starts its next operation the moment the previous one settles, so it keeps the cluster loaded
 * until its workload stops. With an infinite invoke timeout it never has more than one command
 * outstanding and sends exactly what the closed-loop client before time-outs sent.
 *
 * <p>Owned by the simulation thread.
 */
public final class SimClient implements SimNode<Object> {
    /** Invoke timeout meaning "never give up". */
    public static final long NEVER = Long.MAX_VALUE;
    /** Start at a replica drawn from the client's seed. */
    public static final int RANDOM_REPLICA = -1;

    /** One operation of the caller, sent ({@code command} set) or waiting for room in the window. */
    private static final class Op {
        final KvOp input;
        final HistoryRecorder.Invocation<KvOp, String> invocation;
        final long deadline;
        Command command;
        /** A get sent as a query ({@link #readingByQueries}): its number, else -1. */
        long queryId = -1;
        /** The caller stopped waiting for it (answered, timed out, failed). */
        boolean settled;

        Op(KvOp input, HistoryRecorder.Invocation<KvOp, String> invocation, long deadline) {
            this.input = input;
            this.invocation = invocation;
            this.deadline = deadline;
        }
    }

    private final NodeContext<Object> ctx;
    private final int replicas;
    private final long clientId;
    private final ClientWorkload workload;
    private final HistoryRecorder<KvOp, String> history;
    private final long retryTimeout;
    private final long invokeTimeout;
    private final int window;
    private final long thinkTime;
    /** Sent and unanswered, in sequence order; timed-out ones included until answered. */
    private final ArrayDeque<Op> outstanding = new ArrayDeque<>();
    private long sequence;
    private int target;
    /** Redirects followed since the last answer. */
    private int redirectsWithoutAnswer;
    /** The caller's operation it still waits for, or null. */
    private Op current;
    private long retryAt;
    private boolean rotateOnRetry;
    private long readyAt;
    private long lastResend = Long.MIN_VALUE;
    private long timedOut;
    private long neverSent;
    private long lateAnswers;
    private long gapsReported;
    /** Where queries go ({@link #readingByQueries}); null: gets are ordered like every command. */
    private SplittableRandom queryTargets;
    private long nextQuery;
    private int queryTarget;
    private long queryRetryAt;
    private long queriesAnswered;
    private long queriesRetried;

    /**
     * @param retryTimeout  silence after which the client resends to the next replica
     * @param invokeTimeout how long the caller waits for an operation ({@link #NEVER}: forever)
     * @param window        how far (in sequence numbers) a new command may run ahead of the oldest
     *                      unanswered one, timed-out ones included; at most the replies the
     *                      replicas keep per session
     */
    public SimClient(NodeContext<Object> ctx, int replicas, ClientWorkload workload, HistoryRecorder<KvOp, String> history,
              long retryTimeout, long invokeTimeout, int window, long thinkTime, long seed) {
        this(ctx, replicas, workload, history, retryTimeout, invokeTimeout, window, thinkTime, seed, RANDOM_REPLICA);
    }

    /** @param startAt the replica the client sends to first, or {@link #RANDOM_REPLICA} */
    public SimClient(NodeContext<Object> ctx, int replicas, ClientWorkload workload, HistoryRecorder<KvOp, String> history,
              long retryTimeout, long invokeTimeout, int window, long thinkTime, long seed, int startAt) {
        if (window < 1 || invokeTimeout <= 0) {
            throw new IllegalArgumentException("window and invoke timeout must be positive");
        }
        this.ctx = ctx;
        this.replicas = replicas;
        this.clientId = ctx.id();
        this.workload = workload;
        this.history = history;
        this.retryTimeout = retryTimeout;
        this.invokeTimeout = invokeTimeout;
        this.window = window;
        this.thinkTime = thinkTime;
        this.target = startAt == RANDOM_REPLICA ? new SplittableRandom(seed).nextInt(replicas) : startAt;
    }

    /**
     * From now on gets go as queries (read-index, {@link ClientMessage.Query}) to a replica drawn
     * from {@code seed} for each, followers included, instead of being ordered; a query with no
     * answer for the retry timeout goes to the next replica, one told to ask again
     * ({@link ClientMessage.QueryRetry}) asks the next replica soon after; one unanswered at the
     * invoke timeout is recorded as failed (a read that did not happen).
     */
    public SimClient readingByQueries(long seed) {
        this.queryTargets = new SplittableRandom(seed);
        return this;
    }

    /** Queries answered, and queries asked again after a retry answer. */
    public long queriesAnswered() {
        return queriesAnswered;
    }

    /** Queries a replica told the client to ask again ({@link ClientMessage.QueryRetry}). */
    public long queriesRetried() {
        return queriesRetried;
    }

    /** Whether the workload is over and every command sent was answered. */
    public boolean done() {
        return current == null && outstanding.isEmpty() && workload.exhausted(ctx.now());
    }

    /** Whether a command is waiting for its answer or an operation for room to be sent. */
    public boolean hasOutstanding() {
        return !outstanding.isEmpty() || current != null;
    }

    /** Operations the caller gave up on after sending them: recorded with an unknown outcome. */
    public long timedOut() {
        return timedOut;
    }

    /** Operations never sent (the window stayed full for their whole time-out): recorded as failed. */
    public long neverSent() {
        return neverSent;
    }

    /** Answers that came after the caller had given up on their command. */
    public long lateAnswers() {
        return lateAnswers;
    }

    /** Gap reports ({@link ClientMessage.RetryFrom}) received. */
    public long gapsReported() {
        return gapsReported;
    }

    @Override
    public void onTick() {
        long now = ctx.now();
        if (current != null && now >= current.deadline) {
            giveUp(now);
        }
        if (current == null) {
            if (now >= readyAt) {
                startNext();
            }
        } else if (current.queryId >= 0) {
            if (now >= queryRetryAt) {
                queryTarget = (queryTarget + 1) % replicas;
                sendQuery();
            }
        } else if (current.command == null) {
            sendIfRoom();
        }
        if (!outstanding.isEmpty() && now >= retryAt) {
            if (rotateOnRetry) {
                target = (target + 1) % replicas;
            }
            resendFrom(0);
        }
    }

    /** The caller stops waiting for its operation: unknown outcome if sent, failed (never executed) if not. */
    private void giveUp(long now) {
        Op op = current;
        op.settled = true;
        current = null;
        if (op.queryId >= 0) {
            history.failed(op.invocation); // a read that did not happen
        } else if (op.command != null) {
            history.unknown(op.invocation);
            timedOut++;
        } else {
            history.failed(op.invocation);
            neverSent++;
        }
        readyAt = now + thinkTime;
    }

    private void startNext() {
        KvOp op = workload.next(ctx.now());
        if (op != null) {
            long now = ctx.now();
            long deadline = invokeTimeout == NEVER ? NEVER : now + invokeTimeout;
            current = new Op(op, history.invoke((int) clientId, op), deadline);
            if (queryTargets != null && op instanceof KvOp.Get) {
                current.queryId = nextQuery++;
                queryTarget = queryTargets.nextInt(replicas);
                sendQuery();
            } else {
                sendIfRoom();
            }
        }
    }

    private void sendQuery() {
        queryRetryAt = ctx.now() + retryTimeout;
        ctx.send(queryTarget, new ClientMessage.Query(current.queryId,
                new String(KvCommands.encode(current.input), java.nio.charset.StandardCharsets.UTF_8)));
    }

    /** An answer or retry to the caller's query, if it is the one it waits for. */
    private boolean onQueryAnswer(Object message) {
        if (message instanceof ClientMessage.QueryReply r) {
            if (current != null && current.queryId == r.id()) {
                queriesAnswered++;
                history.ok(current.invocation, KvCommands.NONE.equals(r.output()) ? null : r.output());
                current.settled = true;
                current = null;
                readyAt = ctx.now() + thinkTime;
                if (thinkTime == 0) {
                    startNext();
                }
            }
            return true;
        }
        if (message instanceof ClientMessage.QueryRetry r) {
            if (current != null && current.queryId == r.id()) {
                queriesRetried++;
                queryRetryAt = ctx.now() + retryTimeout / 10; // soon, elsewhere: no retry storms
            }
            return true;
        }
        return false;
    }

    /** Numbers and sends the caller's operation if the window has room. */
    private void sendIfRoom() {
        if (!outstanding.isEmpty() && sequence + 1 - outstanding.peek().command.id().sequence() >= window) {
            return;
        }
        Op op = current;
        op.command = new Command(new CommandId(clientId, ++sequence), ByteBuffer.wrap(KvCommands.encode(op.input)));
        if (outstanding.isEmpty()) {
            retryAt = ctx.now() + retryTimeout;
            rotateOnRetry = true;
        }
        outstanding.add(op);
        ctx.send(target, new ClientMessage.Request(op.command));
    }

    /** Resends, in order, every outstanding command from sequence {@code from} on; restarts the retry timer. */
    private void resendFrom(long from) {
        long now = ctx.now();
        retryAt = now + retryTimeout;
        rotateOnRetry = true;
        lastResend = now;
        for (Op op : outstanding) {
            if (op.command.id().sequence() >= from) {
                ctx.send(target, new ClientMessage.Request(op.command));
            }
        }
    }

    @Override
    public void onMessage(int from, Object message) {
        if (onQueryAnswer(message) || outstanding.isEmpty()) {
            return;
        }
        if (message instanceof ClientMessage.Reply r) {
            Op op = remove(r.id());
            if (op == null) {
                return;
            }
            redirectsWithoutAnswer = 0;
            long now = ctx.now();
            if (!outstanding.isEmpty()) {
                retryAt = now + retryTimeout; // progress: the replica is alive
                rotateOnRetry = true;
            }
            if (op.settled) {
                lateAnswers++;
            } else {
                history.ok(op.invocation, KvCommands.NONE.equals(r.output()) ? null : r.output());
                op.settled = true;
                current = null;
                readyAt = now + thinkTime;
                if (thinkTime == 0) {
                    startNext();
                }
            }
            if (current != null && current.command == null && current.queryId < 0) {
                sendIfRoom();
            }
        } else if (message instanceof ClientMessage.NotLeader nl && from == target) {
            // Redirects are no progress: replicas that lag (or were removed from the group) may
            // point at each other, so after as many redirects as there are replicas the client
            // ignores hints and tries the next replica in turn.
            boolean follow = nl.hint() != from && ++redirectsWithoutAnswer <= replicas;
            if (!follow) {
                redirectsWithoutAnswer = 0;
            }
            target = follow ? nl.hint() : (target + 1) % replicas;
            retryAt = ctx.now() + retryTimeout / 10; // soon, not at once: no redirect storms
            rotateOnRetry = false;
        } else if (message instanceof ClientMessage.RetryFrom gap) {
            gapsReported++;
            // Several commands behind one gap each report it: resend once per burst, as SmrClient does.
            if (ctx.now() - lastResend > retryTimeout / 4) {
                resendFrom(gap.next());
            }
        }
    }

    /** The client's state, for failure messages: target, outstanding sequences, the caller's operation. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("client ").append(clientId).append(" -> ").append(target)
                .append(", outstanding [");
        for (Op op : outstanding) {
            sb.append(op.command.id().sequence()).append(op.settled ? "(given up) " : " ");
        }
        sb.append("], caller ").append(current == null ? "idle" : current.command == null ? "waiting for the window"
                : "waiting for " + current.command.id().sequence());
        return sb.append(", retry at ").append(retryAt / 1_000_000).append(" ms").toString();
    }

    private Op remove(CommandId id) {
        for (Iterator<Op> it = outstanding.iterator(); it.hasNext(); ) {
            Op op = it.next();
            if (op.command.id().equals(id)) {
                it.remove();
                return op;
            }
        }
        return null;
    }
}
