package dev.parallax.paxos.spaxos;

import dev.parallax.core.protocol.RecordCodec;
import dev.parallax.paxos.PaxosRecordCodec;

import java.nio.ByteBuffer;

/**
 * Binary form of {@link SPaxosRecord}s in the log {@code spaxos}: a tag byte, then the layer's own
 * encoding.
 *
 * <pre>
 * tag 0: an ordering record — 0, then its {@link PaxosRecordCodec} bytes
 * tag 1: a body             — the {@link DisseminationRecordCodec} bytes, whose first byte is 1
 * tag 2: the incarnation    — the {@link DisseminationRecordCodec} bytes, whose first byte is 2
 * </pre>
 *
 * <p>{@link #decode} refuses an unknown tag or malformed bytes with {@link IllegalArgumentException}.
 * Stateless and thread-safe.
 */
public final class SPaxosRecordCodec implements RecordCodec<SPaxosRecord> {
    static final byte ORDERING = 0;

    private final PaxosRecordCodec ordering = new PaxosRecordCodec();
    private final DisseminationRecordCodec dissemination = new DisseminationRecordCodec();

    @Override
    public ByteBuffer encode(SPaxosRecord record) {
        if (record instanceof SPaxosRecord.Ordering o) {
            ByteBuffer paxos = ordering.encode(o.record());
            return ByteBuffer.allocate(1 + paxos.remaining()).put(ORDERING).put(paxos).flip();
        }
        return dissemination.encode(((SPaxosRecord.Dissemination) record).record());
    }

    @Override
    public SPaxosRecord decode(ByteBuffer bytes) {
        if (!bytes.hasRemaining()) {
            throw new IllegalArgumentException("empty s-paxos record");
        }
        byte tag = bytes.get(bytes.position());
        if (tag == ORDERING) {
            ByteBuffer paxos = bytes.duplicate();
            paxos.position(paxos.position() + 1);
            return new SPaxosRecord.Ordering(ordering.decode(paxos.slice()));
        }
        return new SPaxosRecord.Dissemination(dissemination.decode(bytes));
    }
}
