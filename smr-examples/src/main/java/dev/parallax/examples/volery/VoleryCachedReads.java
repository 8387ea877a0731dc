package dev.parallax.examples.volery;

import dev.parallax.scheduler.ssmr.CachedReads;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Volery's caching SPI (seed 004 (S-SMR) §IV-C; {@link CachedReads}, used with {@code ssmr.cache=on}).
 * Volery exchanges values only when a read (getData, exists, getChildren) is multicast beyond its
 * path's owner (an over-approximating oracle) and for a versioned delete; the owner then sends the
 * reply it gives ({@link VoleryPartition}). With caching, such a read reads two variables of the
 * owner: the read's reply without its zxid ({@link #replyKey}: opcode and path), and the owner's last
 * zxid ({@link #ZXID}), which every write there changes; {@link #assemble} puts the zxid back into
 * the reply, giving the bytes the owner's localReads gives. Writes: a setData at the path's owner
 * changes the three replies of its path and the zxid; a create or delete changes every variable of
 * every partition (its zxid, its parent's children, a sequential node's name are not known before
 * execution). Every other command, and malformed bytes, exchange as without caching and write nothing.
 *
 * <p>Not thread-safe: the replica's S-SMR executor thread, as {@link VoleryPartition}.
 */
final class VoleryCachedReads implements CachedReads {
    /** The owner's last zxid. */
    static final byte[] ZXID = {'z'};
    private static final byte[] READS = {VoleryCommand.OP_GET_DATA, VoleryCommand.OP_EXISTS, VoleryCommand.OP_GET_CHILDREN};

    private final VoleryPartition partition;

    VoleryCachedReads(VoleryPartition partition) {
        this.partition = partition;
    }

    /** The variable "the reply of read {@code opcode} of {@code path}, zxid 0". */
    static byte[] replyKey(byte opcode, String path) {
        byte[] p = path.getBytes(StandardCharsets.UTF_8);
        byte[] k = new byte[2 + p.length];
        k[0] = 'r';
        k[1] = opcode;
        System.arraycopy(p, 0, k, 2, p.length);
        return k;
    }

    private static boolean isRead(VoleryCommand c) {
        return c instanceof GetData || c instanceof Exists || c instanceof GetChildren;
    }

    @Override
    public List<byte[]> reads(ByteBuffer command, int owner, int partitions) {
        VoleryCommand c = VoleryCommand.decode(command).command();
        if (c == null || !isRead(c)) {
            return null;
        }
        return VoleryOracle.partitionOf(c.path(), partitions) == owner ? List.of(replyKey(c.opcode(), c.path()), ZXID)
                : List.of();
    }

    @Override
    public List<byte[]> writes(ByteBuffer command, int owner, int partitions) {
        VoleryCommand c = VoleryCommand.decode(command).command();
        if (c == null) {
            return List.of();
        }
        if (c.isGlobal()) {
            return null; // create, delete, multi and the session commands: any node, and the zxid
        }
        if (c instanceof SetData s && VoleryOracle.partitionOf(s.path(), partitions) == owner) {
            return List.of(replyKey(READS[0], s.path()), replyKey(READS[1], s.path()), replyKey(READS[2], s.path()), ZXID);
        }
        return List.of();
    }

    @Override
    public ByteBuffer value(byte[] key) {
        if (key.length == 1 && key[0] == ZXID[0]) {
            return ByteBuffer.allocate(Long.BYTES).putLong(partition.cachedZxid()).flip();
        }
        String path = new String(key, 2, key.length - 2, StandardCharsets.UTF_8);
        VoleryCommand read = switch (key[1]) {
            case VoleryCommand.OP_GET_DATA -> new GetData(path);
            case VoleryCommand.OP_EXISTS -> new Exists(path);
            default -> new GetChildren(path);
        };
        return partition.cachedReply(read);
    }

    /** The owner's reply with its zxid: {@code values} are the reply at zxid 0 and the zxid. */
    @Override
    public ByteBuffer assemble(ByteBuffer command, int owner, List<ByteBuffer> values) {
        if (values.size() != 2 || values.get(1).remaining() != Long.BYTES) {
            return ByteBuffer.allocate(0); // the read then answers MARSHALLINGERROR alike everywhere
        }
        long zxid = values.get(1).getLong(values.get(1).position());
        return ByteBuffer.wrap(ZkReply.decode(values.get(0)).withZxid(zxid).encode());
    }
}
