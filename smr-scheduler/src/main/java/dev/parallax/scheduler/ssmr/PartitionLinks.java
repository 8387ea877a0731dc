package dev.parallax.scheduler.ssmr;

/**
 * The outbound side of the point-to-point links between partitions that carry S-SMR's signals,
 * values and retransmission requests (seed 004 (S-SMR) §IV Alg. 1 l.15 and l.19, §V-A). The replica's
 * transport implements it (the {@code ssmr} channel on the replica port); inbound messages are
 * handed to {@link SsmrExecutor#receive} (or its byte form, decoded with
 * {@link PartitionMessageCodec}).
 *
 * <p><b>Delivery.</b> Best effort: a message may be lost, delayed, reordered or duplicated. The
 * executor tolerates all of that (duplicates are ignored; a command waiting longer than the
 * configured resend interval asks again with a {@link PartitionMessage.Request}). There is no
 * designated sender: every replica of the sending partition sends, to every replica of
 * {@code partition}, so a command to {@code k} partitions of {@code n} replicas each costs about
 * {@code k·(k-1)·n²} messages (see docs/protocols/s-smr.md); it needs no failure detector and
 * survives the crash of any minority.
 *
 * <p><b>Threads and blocking.</b> Called by one thread only, the executor's thread. It must not
 * block for long: when an outbound queue is full, drop the message (and count it) rather than
 * wait — retransmission recovers. It must not throw; a failure to send is a dropped message.
 */
@FunctionalInterface
public interface PartitionLinks {
    /**
     * Sends {@code message} to every replica of {@code partition} (never this replica's own
     * partition). The message is immutable; the implementation may keep it.
     */
    void send(int partition, PartitionMessage message);
}
