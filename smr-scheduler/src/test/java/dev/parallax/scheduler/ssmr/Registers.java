package dev.parallax.scheduler.ssmr;

import dev.parallax.core.Command;
import dev.parallax.core.GroupSet;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The tests' tiny partitioned register map: variable {@code v} (a long, initially 0) lives in
 * partition {@code v}. Operations: read(v), write(v, x), multiWrite(vars, xs) (Fig. 1's C_xy),
 * readAll(vars) (reads every variable named, remote ones through values), copy(src, dst)
 * (dst := src; replies src's old value). Replies are longs; every involved partition replies the
 * same. A command multicast to too few partitions fails with WrongPartitions.
 *
 * <p>Caching SPI ({@link CachedReads}, used when the test enables {@code ssmr.cache}): variable
 * {@code v}'s name is the byte {@code v}, its value 8 bytes. READ_ALL reads each named variable at
 * its owner, COPY reads src at src (other involved owners: an empty list, values as signals); every
 * other command exchanges as without caching (null).
 *
 * <p>Not thread-safe (one executing thread, as the SPI says).
 */
class Registers implements PartitionedStateMachine, CachedReads {
    static final byte READ = 1;
    static final byte WRITE = 2;
    static final byte MULTI_WRITE = 3;
    static final byte READ_ALL = 4;
    static final byte COPY = 5;
    static final byte BOOM = 6;
    static final byte BAD_READS = 7;

    private final long[] vars;

    Registers(int partitions) {
        this.vars = new long[partitions];
    }

    long value(int v) {
        return vars[v];
    }

    /** The digest of this partition's variable. */
    long digest(int partition) {
        return vars[partition];
    }

    // ------------------------------------------------------------ encoding (client side)

    static byte[] read(int v) {
        return ByteBuffer.allocate(2).put(READ).put((byte) v).array();
    }

    static byte[] write(int v, long x) {
        return ByteBuffer.allocate(10).put(WRITE).put((byte) v).putLong(x).array();
    }

    static byte[] multiWrite(int[] vs, long[] xs) {
        ByteBuffer b = ByteBuffer.allocate(2 + 9 * vs.length).put(MULTI_WRITE).put((byte) vs.length);
        for (int i = 0; i < vs.length; i++) {
            b.put((byte) vs[i]).putLong(xs[i]);
        }
        return b.array();
    }

    static byte[] readAll(int[] vs) {
        ByteBuffer b = ByteBuffer.allocate(2 + vs.length).put(READ_ALL).put((byte) vs.length);
        for (int v : vs) {
            b.put((byte) v);
        }
        return b.array();
    }

    static byte[] copy(int src, int dst) {
        return new byte[]{COPY, (byte) src, (byte) dst};
    }

    /** The partitions a command needs (the exact oracle). */
    static GroupSet partsOf(byte[] cmd) {
        return GroupSet.ofBits(varBits(ByteBuffer.wrap(cmd)));
    }

    static long decodeLong(ByteBuffer reply) {
        return reply.remaining() >= 8 ? reply.getLong(reply.position()) : Long.MIN_VALUE;
    }

    static List<Long> decodeLongs(ByteBuffer reply) {
        List<Long> out = new ArrayList<>();
        ByteBuffer b = reply.duplicate();
        while (b.remaining() >= 8) {
            out.add(b.getLong());
        }
        return out;
    }

    private static long varBits(ByteBuffer c) {
        byte type = c.get(0);
        switch (type) {
            case READ, WRITE, BOOM, BAD_READS -> {
                return 1L << c.get(1);
            }
            case MULTI_WRITE -> {
                long bits = 0;
                for (int i = 0; i < c.get(1); i++) {
                    bits |= 1L << c.get(2 + 9 * i);
                }
                return bits;
            }
            case READ_ALL -> {
                long bits = 0;
                for (int i = 0; i < c.get(1); i++) {
                    bits |= 1L << c.get(2 + i);
                }
                return bits;
            }
            case COPY -> {
                return 1L << c.get(1) | 1L << c.get(2);
            }
            default -> throw new IllegalArgumentException("unknown type " + type);
        }
    }

    // ------------------------------------------------------------ the caching SPI

    @Override
    public CachedReads cachedReads() {
        return this;
    }

    @Override
    public List<byte[]> reads(ByteBuffer command, int owner, int partitions) {
        byte type = command.get(0);
        if (type == READ_ALL) {
            return (varBits(command) & 1L << owner) != 0 ? List.of(new byte[]{(byte) owner}) : List.of();
        }
        if (type == COPY) {
            return command.get(1) == owner ? List.of(new byte[]{(byte) owner}) : List.of();
        }
        return null;
    }

    @Override
    public List<byte[]> writes(ByteBuffer command, int owner, int partitions) {
        byte type = command.get(0);
        boolean writes = switch (type) {
            case WRITE -> command.get(1) == owner;
            case MULTI_WRITE -> (varBits(command) & 1L << owner) != 0;
            case COPY -> command.get(2) == owner;
            default -> false;
        };
        return writes ? List.of(new byte[]{(byte) owner}) : List.of();
    }

    @Override
    public ByteBuffer value(byte[] key) {
        return ByteBuffer.allocate(8).putLong(vars[key[0]]).flip();
    }

    // ------------------------------------------------------------ the SPI

    @Override
    public ByteBuffer localReads(ByteBuffer command, PartitionView view) {
        int p = view.partition();
        byte type = command.get(0);
        if (type == BAD_READS) {
            throw new IllegalStateException("bad reads");
        }
        if (type == READ_ALL && (varBits(command) & 1L << p) != 0) {
            return ByteBuffer.allocate(8).putLong(vars[p]).flip();
        }
        if (type == COPY && command.get(1) == p) {
            return ByteBuffer.allocate(8).putLong(vars[p]).flip();
        }
        return ByteBuffer.allocate(0);
    }

    @Override
    public GroupSet remoteReads(ByteBuffer command, PartitionView view) {
        int p = view.partition();
        byte type = command.get(0);
        long bits = 0;
        if (type == READ_ALL) {
            bits = varBits(command) & ~(1L << p);
        } else if (type == COPY && command.get(1) != p) {
            bits = 1L << command.get(1);
        }
        bits &= view.involved().bits();
        return bits == 0 ? null : GroupSet.ofBits(bits);
    }

    @Override
    public ByteBuffer execute(ByteBuffer c, ExecutionContext ctx) {
        ctx.require(GroupSet.ofBits(varBits(c)));
        int p = ctx.partition();
        byte type = c.get(0);
        switch (type) {
            case READ -> {
                return ByteBuffer.allocate(8).putLong(vars[c.get(1)]).flip();
            }
            case WRITE -> {
                vars[c.get(1)] = c.getLong(2);
                return ByteBuffer.allocate(0);
            }
            case MULTI_WRITE -> {
                for (int i = 0; i < c.get(1); i++) {
                    if (c.get(2 + 9 * i) == p) {
                        vars[p] = c.getLong(3 + 9 * i);
                    }
                }
                return ByteBuffer.allocate(0);
            }
            case READ_ALL -> {
                int n = c.get(1);
                ByteBuffer out = ByteBuffer.allocate(8 * n);
                for (int i = 0; i < n; i++) {
                    int v = c.get(2 + i);
                    out.putLong(v == p ? vars[p] : ctx.valuesOf(v).getLong());
                }
                return out.flip();
            }
            case COPY -> {
                int src = c.get(1);
                int dst = c.get(2);
                long x = src == p ? vars[p] : ctx.valuesOf(src).getLong();
                if (dst == p) {
                    vars[p] = x;
                }
                return ByteBuffer.allocate(8).putLong(x).flip();
            }
            case BOOM -> throw new IllegalStateException("boom");
            default -> throw new IllegalArgumentException("unknown type " + type);
        }
    }

    @Override
    public void snapshot(WritableByteChannel out) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8 * vars.length);
        for (long v : vars) {
            b.putLong(v);
        }
        b.flip();
        while (b.hasRemaining()) {
            out.write(b);
        }
    }

    @Override
    public void restore(ReadableByteChannel in) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8 * vars.length);
        while (b.hasRemaining()) {
            if (in.read(b) < 0) {
                throw new IOException("short snapshot");
            }
        }
        b.flip();
        for (int i = 0; i < vars.length; i++) {
            vars[i] = b.getLong();
        }
    }

    /** A command from {@code client} with the exact destinations. */
    static Command command(long client, long seq, byte[] payload) {
        return Command.of(client, partsOf(payload), seq, payload);
    }

    /** A command with explicit (maybe too few) destinations. */
    static Command command(long client, long seq, GroupSet dests, byte[] payload) {
        return Command.of(client, dests, seq, payload);
    }
}
