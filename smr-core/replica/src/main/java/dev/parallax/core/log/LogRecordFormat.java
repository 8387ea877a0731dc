package dev.parallax.core.log;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The bytes of the log's own excerpts inside Chronicle Queue, little-endian.
 *
 * <p>A <b>record</b> is one Chronicle data excerpt: {@code index:8 length:4 crc:4 payload}, where
 * {@code crc} is the CRC32C of {@code index}, {@code length} and the payload. The index makes a
 * record that landed in the wrong place (a lost or duplicated excerpt) as detectable as a damaged
 * one.
 *
 * <p>A <b>sync marker</b> is one Chronicle metadata excerpt (it takes no sequence number):
 * {@code magic:4 durableNext:8 crc:4}. Each force appends one before it forces, recording what the
 * previous, completed force covered: every record below {@code durableNext} had reached the device.
 * So a marker never claims more than is on the device, and the force that follows makes it durable.
 * At open it separates damage to unforced records (a torn tail: cut it) from damage to forced ones
 * (refuse to open).
 *
 * <p>Holds reusable scratch state: confined to one thread.
 */
final class LogRecordFormat {
    static final int RECORD_HEADER_BYTES = 16;
    static final int MARKER_BYTES = 16;
    /** "PXSY" read as a little-endian int. */
    static final int MARKER_MAGIC = 0x5953_5850;

    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final CRC32C crc = new CRC32C();
    private final byte[] header = new byte[RECORD_HEADER_BYTES];
    private final byte[] marker = new byte[MARKER_BYTES];
    private final byte[] scratch = new byte[4096];

    /**
     * Fills and returns the header of a record (reused array: valid until the next call).
     * Leaves {@code payload}'s position unchanged.
     */
    byte[] recordHeader(long index, ByteBuffer payload) {
        int length = payload.remaining();
        LONG.set(header, 0, index);
        INT.set(header, 8, length);
        crc.reset();
        crc.update(header, 0, 12);
        int position = payload.position();
        if (payload.isDirect() || payload.hasArray()) {
            crc.update(payload);
            payload.position(position);
        } else {
            for (int done = 0; done < length; ) {
                int n = Math.min(scratch.length, length - done);
                payload.get(position + done, scratch, 0, n);
                crc.update(scratch, 0, n);
                done += n;
            }
        }
        INT.set(header, 12, (int) crc.getValue());
        return header;
    }

    /**
     * A reusable 4 KiB array for copying read-only heap buffers, which expose no array (the JDK's
     * own fallback allocates one per call).
     */
    byte[] scratch() {
        return scratch;
    }

    /** Fills and returns a sync marker (reused array: valid until the next call). */
    byte[] marker(long durableNext) {
        INT.set(marker, 0, MARKER_MAGIC);
        LONG.set(marker, 4, durableNext);
        crc.reset();
        crc.update(marker, 0, 12);
        INT.set(marker, 12, (int) crc.getValue());
        return marker;
    }

    /**
     * Checks that an excerpt of {@code excerptLength} bytes, whose first
     * {@value #RECORD_HEADER_BYTES} bytes are in {@code header} and the rest in
     * {@code payload[0, excerptLength - RECORD_HEADER_BYTES)}, is a well-formed record.
     *
     * @return null if it is, otherwise what is wrong with it
     */
    String checkRecord(byte[] header, byte[] payload, long excerptLength) {
        int length = payloadLength(header);
        if (length != excerptLength - RECORD_HEADER_BYTES) {
            return "length field " + length + " does not match the excerpt of " + excerptLength + " bytes";
        }
        crc.reset();
        crc.update(header, 0, 12);
        crc.update(payload, 0, length);
        int stored = (int) INT.get(header, 12);
        if ((int) crc.getValue() != stored) {
            return "CRC32C mismatch (stored " + Integer.toHexString(stored) + ", computed "
                    + Integer.toHexString((int) crc.getValue()) + ")";
        }
        return null;
    }

    /** The index field of a record header. */
    static long recordIndex(byte[] header) {
        return (long) LONG.get(header, 0);
    }

    /** The payload length field of a record header. */
    static int payloadLength(byte[] header) {
        return (int) INT.get(header, 8);
    }

    /**
     * Reads a sync marker.
     *
     * @param excerpt the first {@value #MARKER_BYTES} bytes of a metadata excerpt of
     *                {@code length} bytes
     * @return its {@code durableNext}, or -1 if the excerpt is not a valid marker (Chronicle's own
     *         metadata excerpts are not)
     */
    long markerDurableNext(byte[] excerpt, long length) {
        if (length != MARKER_BYTES || (int) INT.get(excerpt, 0) != MARKER_MAGIC) {
            return -1;
        }
        crc.reset();
        crc.update(excerpt, 0, 12);
        if ((int) crc.getValue() != (int) INT.get(excerpt, 12)) {
            return -1;
        }
        return (long) LONG.get(excerpt, 4);
    }
}
