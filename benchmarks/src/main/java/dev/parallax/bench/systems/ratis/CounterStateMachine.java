package dev.parallax.bench.systems.ratis;

import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * The Ratis peer's trivial state machine: a counter. Every applied transaction, whatever its bytes,
 * increments the counter and replies with the new value as 8 big-endian bytes; read-only queries
 * reply with the current value the same way. Keeps no snapshot (a benchmark group lives for one run).
 *
 * <p>Thread-safety: Ratis calls {@link #applyTransaction} from its single state-machine updater
 * thread; {@link #value} and {@link #query} may be called from any thread. Nothing here blocks.
 */
public final class CounterStateMachine extends BaseStateMachine {
    private volatile long counter;

    /**
     * Increments the counter for the committed entry and replies with the new value.
     *
     * @return an already completed future holding the 8-byte counter value
     */
    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        // Single writer (the updater thread), so the read-increment-write needs no atomic.
        long next = counter + 1;
        counter = next;
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        return CompletableFuture.completedFuture(encode(next));
    }

    /**
     * Replies with the current counter value, ignoring the request's bytes.
     *
     * @return an already completed future holding the 8-byte counter value
     */
    @Override
    public CompletableFuture<Message> query(Message request) {
        return CompletableFuture.completedFuture(encode(counter));
    }

    /** The number of transactions applied so far. Thread-safe, non-blocking. */
    public long value() {
        return counter;
    }

    private static Message encode(long value) {
        return Message.valueOf(UnsafeByteOperations.unsafeWrap(ByteBuffer.allocate(Long.BYTES).putLong(0, value)));
    }
}
