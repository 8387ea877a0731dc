package dev.parallax.core.protocol;

import java.nio.ByteBuffer;

/**
 * Turns a protocol's durable records into log bytes and back. Implementations are stateless and
 * thread-safe.
 *
 * @param <R> record type
 */
public interface RecordCodec<R> {

    /** The record's bytes, positioned at 0. */
    ByteBuffer encode(R record);

    /**
     * @param bytes a record's bytes as {@link #encode} produced them (read-only, valid during the call)
     * @throws IllegalArgumentException if the bytes are not a record of this codec
     */
    R decode(ByteBuffer bytes);
}
