package dev.parallax.examples.linkedlist;

import dev.parallax.core.Command;
import dev.parallax.scheduler.CommandClassifier;
import dev.parallax.scheduler.classmap.ClassMap;
import dev.parallax.scheduler.classmap.ShardedClasses;

import java.nio.ByteBuffer;

/**
 * Maps {@link ShardedLinkedList} commands to the {@code 2n + 2} classes of seed 001 §5.2
 * ({@link ShardedClasses}): local reads and writes of shard {@code x} to {@code Rx} and
 * {@code Wx}, global reads to {@code Rg}, global writes to {@code Wg}.
 *
 * <p>Immutable and thread-safe.
 */
public final class ListClassifier implements CommandClassifier {
    private final ShardedClasses classes;

    /** @param shards the list's number of shards */
    public ListClassifier(int shards) {
        this.classes = new ShardedClasses(shards);
    }

    /** The classes this classifier returns. */
    public ShardedClasses classes() {
        return classes;
    }

    /** The map of seed 001 §5.2.2, two threads per shard. */
    public ClassMap classMap() {
        return classes.classMap();
    }

    /** The same shape over {@code threads} worker threads ({@link ShardedClasses#classMap(int)}). */
    public ClassMap classMap(int threads) {
        return classes.classMap(threads);
    }

    /**
     * @throws IllegalArgumentException for a malformed command (not 9 bytes),
     *                                  an unknown operation or an unknown shard; an executor answers
     *                                  such a command with the error result
     *                                  {@code "unclassifiable command: IllegalArgumentException: ..."}
     *                                  and goes on. Deterministic, like every classifier must be.
     */
    @Override
    public int classify(Command command) {
        ByteBuffer p = command.payload();
        if (p.remaining() != ListCommands.SIZE) {
            throw new IllegalArgumentException("list commands have " + ListCommands.SIZE + " bytes, got "
                    + p.remaining());
        }
        return switch (ListCommands.op(p)) {
            case ListCommands.LOCAL_READ -> classes.localRead(ListCommands.shard(p));
            case ListCommands.LOCAL_WRITE -> classes.localWrite(ListCommands.shard(p));
            case ListCommands.GLOBAL_READ -> classes.globalRead();
            case ListCommands.GLOBAL_WRITE -> classes.globalWrite();
            default -> throw new IllegalArgumentException("unknown operation " + ListCommands.op(p));
        };
    }
}
