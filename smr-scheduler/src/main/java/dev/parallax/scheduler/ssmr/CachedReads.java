package dev.parallax.scheduler.ssmr;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The opt-in SPI of S-SMR caching (seed 004 (S-SMR) §IV-C, conservative caching): a
 * {@link PartitionedStateMachine} whose remote reads are reads of named variables, each owned by one
 * partition, returns one from {@link PartitionedStateMachine#cachedReads}. With
 * {@code ssmr.cache=on} the executor then exchanges, for such commands, the values of single
 * variables instead of the opaque bytes of {@link PartitionedStateMachine#localReads}, keeps the
 * variables other partitions sent in a bounded cache, and lets their owners answer "your copy is
 * current" (⊥) instead of the value ({@link CachedExchange} has the rules). A machine that returns
 * null (the default) keeps today's exchange.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>{@link #reads} and {@link #writes} are pure</b>: functions of the command bytes, the
 *       owner and the number of partitions only (not of this partition's state, not of which
 *       partition calls): every partition computes them for every owner, and both the owner and
 *       the reader must get the same lists. They may throw on malformed bytes — then alike
 *       everywhere.</li>
 *   <li><b>{@link #value}</b> reads this partition's current value of one of its variables, as
 *       bytes; called before the command executes, on the executing thread; it must not change
 *       state.</li>
 *   <li><b>{@link #assemble}</b> turns the values of {@code owner}'s variables, in {@link #reads}
 *       order, into the bytes {@link ExecutionContext#valuesOf}{@code (owner)} gives
 *       {@code execute}; the default concatenates them.</li>
 *   <li><b>Exchange is fixed before execution</b>, as the rest of S-SMR here: the variables a
 *       command reads must be known from the command (declare a superset if need be).</li>
 * </ul>
 *
 * <p>Threads: the executing thread only, as {@link PartitionedStateMachine}.
 */
public interface CachedReads {
    /**
     * The variables of partition {@code owner} that {@code command} reads, in the order their
     * values are assembled (repetitions allowed), or null to exchange {@code owner}'s values for
     * this command as today ({@link PartitionedStateMachine#localReads}, not cached).
     */
    List<byte[]> reads(ByteBuffer command, int owner, int partitions);

    /**
     * The variables of partition {@code owner} that {@code command} may change (a superset is
     * fine), or null if it may change any of them (e.g. a FLUSHALL).
     */
    List<byte[]> writes(ByteBuffer command, int owner, int partitions);

    /** This partition's current value of its variable {@code key} (never null). */
    ByteBuffer value(byte[] key);

    /** The bytes {@code execute} reads as {@code owner}'s values, from the variables' values in {@link #reads} order. */
    default ByteBuffer assemble(ByteBuffer command, int owner, List<ByteBuffer> values) {
        int size = 0;
        for (ByteBuffer v : values) {
            size += v.remaining();
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        for (ByteBuffer v : values) {
            out.put(v.duplicate());
        }
        return out.flip();
    }
}
