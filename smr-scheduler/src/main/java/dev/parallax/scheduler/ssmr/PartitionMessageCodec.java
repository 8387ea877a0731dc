package dev.parallax.scheduler.ssmr;

import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The wire format of {@link PartitionMessage}s on the replicas' {@code ssmr} channel. Decoding never
 * throws on bad input: it returns {@link Decoded.Malformed} and counts it.
 *
 * <p>Format (big-endian): {@code version:u8 (=1) | type:u8 (1 signal, 2 values, 3 request,
 * 4 full request, 5 cached values) |
 * from:u8 (0..63) | clientId:i64 | groups:i64 (non-zero bits) | sequence:i64 (>= 0)}, and for values and cached
 * values {@code length:i32 | bytes}; cached values' bytes must be {@link CachedValuesFormat}
 * (checked here: a malformed one is dropped and counted like any malformed message). The buffer holds exactly one message; a message is at most
 * {@code maxMessageBytes} long.
 *
 * <p>Thread-safe (the counter is atomic); no method blocks.
 */
public final class PartitionMessageCodec {
    /** The format version written and accepted. */
    public static final int VERSION = 1;
    /** Bytes of a message besides the values. */
    public static final int MAX_HEADER_BYTES = 31;
    private static final int FIXED = 27;
    private static final int SIGNAL = 1;
    private static final int VALUES = 2;
    private static final int REQUEST = 3;
    private static final int FULL_REQUEST = 4;
    private static final int CACHED_VALUES = 5;

    /** What {@link #decode} found. */
    public sealed interface Decoded {
        /** A well-formed message. */
        record Ok(PartitionMessage message) implements Decoded {
        }

        /** Bytes that are no message of this format; {@code reason} says why. */
        record Malformed(String reason) implements Decoded {
        }
    }

    private final int maxMessageBytes;
    private final AtomicLong malformed = new AtomicLong();

    /**
     * @param maxMessageBytes the largest message accepted or written ({@link SsmrConfig#maxMessageBytes})
     * @throws IllegalArgumentException if below {@link #MAX_HEADER_BYTES}
     */
    public PartitionMessageCodec(int maxMessageBytes) {
        if (maxMessageBytes < MAX_HEADER_BYTES) {
            throw new IllegalArgumentException("maxMessageBytes must be >= " + MAX_HEADER_BYTES + ", got " + maxMessageBytes);
        }
        this.maxMessageBytes = maxMessageBytes;
    }

    /**
     * The message as a new buffer, positioned at 0.
     *
     * @throws IllegalArgumentException if it would exceed {@code maxMessageBytes}
     */
    public ByteBuffer encode(PartitionMessage message) {
        Objects.requireNonNull(message, "message");
        ByteBuffer values = message instanceof PartitionMessage.Values v ? v.values()
                : message instanceof PartitionMessage.CachedValues c ? c.values() : null;
        int size = FIXED + (values == null ? 0 : 4 + values.remaining());
        if (size > maxMessageBytes) {
            throw new IllegalArgumentException("message of " + size + " bytes exceeds " + maxMessageBytes);
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.put((byte) VERSION);
        b.put((byte) (message instanceof PartitionMessage.Signal ? SIGNAL
                : message instanceof PartitionMessage.Values ? VALUES
                : message instanceof PartitionMessage.CachedValues ? CACHED_VALUES
                : message instanceof PartitionMessage.FullRequest ? FULL_REQUEST : REQUEST));
        b.put((byte) message.from());
        CommandId id = message.command();
        b.putLong(id.clientId()).putLong(id.groups().bits()).putLong(id.sequence());
        if (values != null) {
            b.putInt(values.remaining()).put(values);
        }
        return b.flip();
    }

    /** Decodes the bytes from position to limit (the buffer's position is not moved). Never throws. */
    public Decoded decode(ByteBuffer bytes) {
        if (bytes == null) {
            return malformed("null buffer");
        }
        ByteBuffer b = bytes.duplicate();
        int size = b.remaining();
        if (size > maxMessageBytes) {
            return malformed("message of " + size + " bytes exceeds " + maxMessageBytes);
        }
        if (size < FIXED) {
            return malformed("message of " + size + " bytes is shorter than the header");
        }
        int version = b.get() & 0xFF;
        if (version != VERSION) {
            return malformed("unknown version " + version);
        }
        int type = b.get() & 0xFF;
        int from = b.get() & 0xFF;
        if (from > GroupSet.MAX_GROUP) {
            return malformed("partition " + from + " out of range");
        }
        long client = b.getLong();
        long groups = b.getLong();
        long sequence = b.getLong();
        if (groups == 0) {
            return malformed("empty destination");
        }
        if (sequence < 0) {
            return malformed("negative sequence");
        }
        CommandId id = new CommandId(client, GroupSet.ofBits(groups), sequence);
        switch (type) {
            case SIGNAL, REQUEST, FULL_REQUEST -> {
                if (b.hasRemaining()) {
                    return malformed(b.remaining() + " trailing bytes");
                }
                return new Decoded.Ok(type == SIGNAL ? new PartitionMessage.Signal(id, from)
                        : type == REQUEST ? new PartitionMessage.Request(id, from)
                        : new PartitionMessage.FullRequest(id, from));
            }
            case VALUES, CACHED_VALUES -> {
                if (b.remaining() < 4) {
                    return malformed("values without length");
                }
                int length = b.getInt();
                if (length < 0 || length != b.remaining()) {
                    return malformed("values length " + length + " but " + b.remaining() + " bytes follow");
                }
                ByteBuffer v = ByteBuffer.allocate(length).put(b).flip();
                if (type == VALUES) {
                    return new Decoded.Ok(new PartitionMessage.Values(id, from, v));
                }
                if (!CachedValuesFormat.valid(v)) {
                    return malformed("cached values that are not count|(0 | 1 length bytes)*");
                }
                return new Decoded.Ok(new PartitionMessage.CachedValues(id, from, v));
            }
            default -> {
                return malformed("unknown type " + type);
            }
        }
    }

    /** How many malformed messages {@link #decode} has seen. */
    public long malformed() {
        return malformed.get();
    }

    private Decoded malformed(String reason) {
        malformed.incrementAndGet();
        return new Decoded.Malformed(reason);
    }
}
