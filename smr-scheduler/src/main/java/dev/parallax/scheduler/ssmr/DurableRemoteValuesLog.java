package dev.parallax.scheduler.ssmr;

import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.DurableLog;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The {@link RemoteValuesLog} of a replica: records in a {@link DurableLog} (the replica's log
 * {@value #NAME}), indexed in memory by command. Seed 004 (S-SMR) §IV leaves recovery open; the
 * remote values a command read must be logged with it, or a replaying replica cannot re-execute
 * it.
 *
 * <p><b>What is kept.</b> An entry for every finished command that involved another partition
 * (its values, possibly none: the entry also says that the command's signals had all arrived, so a
 * replay need not wait for them). A command of this partition alone reads nothing remote and waits
 * for no one; it is not written (most commands, no log traffic).
 *
 * <p><b>Durability.</b> {@link #append} writes the record and calls {@link DurableLog#sync()}, so the
 * entry is as durable as the replica's log policy ({@code log.sync}) makes its own records before
 * the executor replies.
 *
 * <p><b>Truncation.</b> {@link #truncateThrough} drops the entries up to a finish index and the log
 * records below the first kept one.
 *
 * <p><b>Record</b> (big-endian): {@code byte version (1) | long index | long clientId | long group
 * bits | long sequence | int n | n × (int partition, int length, bytes)}. A record that does not
 * parse when the log is opened stops the replica's start with a message naming the log index.
 *
 * <p>Thread-safe: appends and lookups on the executor thread, truncation on another (every method
 * holds this object's lock).
 */
public final class DurableRemoteValuesLog implements RemoteValuesLog, AutoCloseable {
    /** The replica log's name. */
    public static final String NAME = "ssmr-values";
    private static final byte VERSION = 1;

    private final DurableLog log;
    private final int partition;
    private final Map<CommandId, Stored> byCommand = new HashMap<>();
    /** Entries in finish order: finish index, log index, command. */
    private final ArrayDeque<Entry> order = new ArrayDeque<>();

    private record Entry(long index, long logIndex, CommandId command) {
    }

    /** A command's newest entry (a replay appends the command again, with a higher index). */
    private record Stored(long index, RemoteValues values) {
    }

    private DurableRemoteValuesLog(DurableLog log, int partition) {
        this.log = Objects.requireNonNull(log, "log");
        this.partition = partition;
    }

    /**
     * Opens the entries {@code log} holds (read once, here).
     *
     * @param partition this replica's partition: commands of it alone are not written
     * @throws IllegalStateException if a record does not parse (naming its log index)
     */
    public static DurableRemoteValuesLog open(DurableLog log, int partition) {
        DurableRemoteValuesLog l = new DurableRemoteValuesLog(log, partition);
        long from = log.firstIndex();
        while (from < log.nextIndex()) {
            int read = log.read(from, 1024, (index, record) -> l.load(index, record));
            if (read == 0) {
                break;
            }
            from += read;
        }
        return l;
    }

    private void load(long logIndex, ByteBuffer record) {
        ByteBuffer b = record.duplicate();
        try {
            if (b.get() != VERSION) {
                throw new IllegalArgumentException("unknown record version");
            }
            long index = b.getLong();
            CommandId id = new CommandId(b.getLong(), GroupSet.ofBits(b.getLong()), b.getLong());
            int n = b.getInt();
            if (n < 0 || n > GroupSet.MAX_GROUP + 1) {
                throw new IllegalArgumentException("bad value count " + n);
            }
            Map<Integer, ByteBuffer> values = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                int p = b.getInt();
                int len = b.getInt();
                if (len < 0 || len > b.remaining()) {
                    throw new IllegalArgumentException("bad value length " + len);
                }
                byte[] v = new byte[len];
                b.get(v);
                values.put(p, ByteBuffer.wrap(v));
            }
            if (b.hasRemaining()) {
                throw new IllegalArgumentException(b.remaining() + " trailing bytes");
            }
            put(index, logIndex, id, RemoteValues.of(values));
        } catch (RuntimeException e) {
            throw new IllegalStateException("log " + NAME + ": record " + logIndex + " is not an S-SMR remote-values entry ("
                    + e.getMessage() + "); the replica cannot replay the commands it covers", e);
        }
    }

    private void put(long index, long logIndex, CommandId id, RemoteValues values) {
        byCommand.put(id, new Stored(index, values));
        order.addLast(new Entry(index, logIndex, id));
    }

    @Override
    public synchronized void append(long index, CommandId command, RemoteValues values) {
        if (command.groups().size() == 1 && command.groups().contains(partition)) {
            return; // this partition's alone: nothing remote to replay, no one to wait for
        }
        int size = 1 + 8 * 4 + 4;
        for (int p : values.partitions()) {
            size += 8 + values.get(p).remaining();
        }
        ByteBuffer b = ByteBuffer.allocate(size).put(VERSION).putLong(index).putLong(command.clientId())
                .putLong(command.groups().bits()).putLong(command.sequence()).putInt(values.size());
        for (int p : values.partitions()) {
            ByteBuffer v = values.get(p);
            b.putInt(p).putInt(v.remaining()).put(v);
        }
        long logIndex = log.append(b.flip());
        log.sync();
        put(index, logIndex, command, values);
    }

    @Override
    public synchronized Optional<RemoteValues> lookup(CommandId command) {
        Stored s = byCommand.get(command);
        return s == null ? Optional.empty() : Optional.of(s.values());
    }

    @Override
    public synchronized void truncateThrough(long index) {
        boolean dropped = false;
        while (!order.isEmpty() && order.peekFirst().index() <= index) {
            Entry e = order.pollFirst();
            Stored s = byCommand.get(e.command());
            if (s != null && s.index() == e.index()) {
                byCommand.remove(e.command());
            }
            dropped = true;
        }
        if (dropped) {
            log.truncateBefore(order.isEmpty() ? log.nextIndex() : order.peekFirst().logIndex());
        }
    }

    /** Entries kept (commands that can be replayed without waiting). */
    public synchronized int size() {
        return byCommand.size();
    }

    /** Closes the underlying log. */
    @Override
    public synchronized void close() {
        log.close();
    }
}
