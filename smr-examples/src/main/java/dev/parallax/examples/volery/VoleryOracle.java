package dev.parallax.examples.volery;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.CommandRouter;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * Volery's oracle (seed 004 (S-SMR / Eyrie / Volery) §V-B): the partition owning a path is
 * {@code CRC32(UTF-8 path) mod P} (the paper's {@code f(path) = CRC32(path) mod P + 1}, numbered
 * from 0 here, so partition i is multicast group i); getData, setData, exists and getChildren go to
 * the path's owner (local commands), create and delete to all P partitions (global commands), so
 * that every partition keeps the whole hierarchy while only the owner keeps a znode's data current.
 * A sequential create's final name is unknown before it executes, which does not matter: creates go
 * everywhere. Malformed command bytes go to group 0, {@link GroupSet#DEFAULT} (the replicas reject
 * them identically, as {@code KvRouter} does).
 *
 * <p>Immutable and thread-safe; never blocks; {@link #route(ByteBuffer)} never throws and leaves the
 * buffer's position and limit alone.
 */
public final class VoleryOracle implements CommandRouter {
    private final int partitions;
    private final GroupSet all;

    /**
     * An oracle over {@code partitions} partitions, 0..partitions-1.
     *
     * @throws IllegalArgumentException unless 1 &lt;= partitions &lt;= {@link GroupSet#MAX_GROUP} + 1
     */
    public VoleryOracle(int partitions) {
        this.all = GroupSet.partition(partitions);
        this.partitions = partitions;
    }

    /** The number of partitions P. */
    public int partitions() {
        return partitions;
    }

    /** The partition owning {@code path}: CRC32 of its UTF-8 bytes mod P. */
    public int partitionOf(String path) {
        return partitionOf(path, partitions);
    }

    /**
     * The partition owning {@code path} among {@code partitions}: CRC32 of its UTF-8 bytes mod
     * {@code partitions}.
     *
     * @throws IllegalArgumentException if partitions &lt; 1
     */
    public static int partitionOf(String path, int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, got " + partitions);
        }
        CRC32 crc = new CRC32();
        crc.update(path.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % partitions);
    }

    /**
     * The partitions {@code command} goes to: all for create and delete, the named partition for a
     * front end's watch command ({@link VoleryCommand#targetPartition()}; one beyond P goes to
     * {@link GroupSet#DEFAULT}, where the replicas answer BADARGUMENTS), else the path's owner.
     */
    public GroupSet route(VoleryCommand command) {
        int target = command.targetPartition();
        if (target >= 0) {
            return target < partitions ? GroupSet.of(target) : GroupSet.DEFAULT;
        }
        return command.toEveryPartition() ? all : GroupSet.of(partitionOf(command.path()));
    }

    /** Decodes the command and routes it; malformed bytes go to {@link GroupSet#DEFAULT}. */
    @Override
    public GroupSet route(ByteBuffer command) {
        VoleryCommand.Decoded decoded = VoleryCommand.decode(command);
        return decoded.ok() ? route(decoded.command()) : GroupSet.DEFAULT;
    }
}
