package dev.parallax.examples.kv;

import dev.parallax.scheduler.ssmr.CachedReads;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The key-value store's caching SPI (seed 004 (S-SMR) §IV-C; {@link CachedReads}, used with
 * {@code ssmr.cache=on}): a variable is a key, owned by {@link KvRouter#groupOf}. Only the commands
 * that read values (GET, INCR, MGET, STRLEN) exchange with caching; a key's value is what
 * {@link KvPartition#localReads} sends for one key position ({@code 0}, or {@code 1 length:i32 bytes}),
 * so the default assembly — the values of the owner's key positions in command order — is exactly
 * the bytes {@link KvPartition#execute} reads without caching. Presence-only reads (SET NX/XX, DEL,
 * EXISTS) and DBSIZE keep today's exchange. Writes: the keys a SET, SET NX/XX, DEL, INCR or MSET names
 * at their owner; FLUSHALL every key. Malformed bytes read and write nothing.
 *
 * <p>Not thread-safe: the replica's S-SMR executor thread, as {@link KvPartition}.
 */
final class KvCachedReads implements CachedReads {
    private final KvPartition partition;
    private final KvRouter router;

    KvCachedReads(KvPartition partition, KvRouter router) {
        this.partition = partition;
        this.router = router;
    }

    @Override
    public List<byte[]> reads(ByteBuffer command, int owner, int partitions) {
        KvCommand c = decodeOrNull(command);
        if (c == null) {
            return null;
        }
        boolean values = switch (c.op()) {
            case GET, INCR, MGET, STRLEN -> true;
            default -> false;
        };
        if (!values) {
            return null;
        }
        byte[][] a = c.rawArgs();
        int keys = c.op() == KvOp.MGET ? c.argCount() : 1;
        List<byte[]> owned = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
            if (router.groupOf(a[i]) == owner) {
                owned.add(a[i]);
            }
        }
        return owned;
    }

    @Override
    public List<byte[]> writes(ByteBuffer command, int owner, int partitions) {
        KvCommand c = decodeOrNull(command);
        if (c == null) {
            return List.of();
        }
        byte[][] a = c.rawArgs();
        int step = 1;
        int last;
        switch (c.op()) {
            case FLUSHALL -> {
                return null;
            }
            case SET, SET_IF_ABSENT, SET_IF_PRESENT, INCR -> last = 1;
            case DEL -> last = c.argCount();
            case MSET -> {
                last = a.length;
                step = 2;
            }
            default -> {
                return List.of();
            }
        }
        List<byte[]> owned = new ArrayList<>();
        for (int i = 0; i < last; i += step) {
            if (router.groupOf(a[i]) == owner) {
                owned.add(a[i]);
            }
        }
        return owned;
    }

    @Override
    public ByteBuffer value(byte[] key) {
        byte[] v = partition.valueOf(key);
        if (v == null) {
            return ByteBuffer.wrap(new byte[]{0});
        }
        return ByteBuffer.allocate(1 + Integer.BYTES + v.length).put((byte) 1).putInt(v.length).put(v).flip();
    }

    private static KvCommand decodeOrNull(ByteBuffer command) {
        try {
            return KvCommand.decode(command.duplicate());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
