package dev.parallax.bench.systems.limits;

/**
 * The bare forwarder's wire formats (big-endian). Leader to follower, one message per client read
 * burst: {@code [int length][long batchId][int commandCount][commands]}, where {@code length}
 * counts everything after itself and the commands keep the client's {@code [int length][bytes]}
 * framing. Follower to leader: {@code [long batchId]} per batch. Leader to client, per command:
 * {@code [int 8][long batchId]}. Constants only.
 */
final class BatchWire {
    /** Bytes of a batch header: length, batch id, command count. */
    static final int HEADER_BYTES = Integer.BYTES + Long.BYTES + Integer.BYTES;
    /** Bytes of the length prefix and batch id a follower reads before skipping the rest of a batch. */
    static final int FOLLOWER_PREFIX_BYTES = Integer.BYTES + Long.BYTES;
    /** Bytes of an acknowledgement. */
    static final int ACK_BYTES = Long.BYTES;
    /** Bytes of a reply's payload. */
    static final int REPLY_BYTES = Long.BYTES;
    /** Bytes of one framed reply on the client connection. */
    static final int FRAMED_REPLY_BYTES = Integer.BYTES + REPLY_BYTES;

    private BatchWire() {
    }
}
