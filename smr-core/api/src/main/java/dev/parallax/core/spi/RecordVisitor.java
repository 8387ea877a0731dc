package dev.parallax.core.spi;

import java.nio.ByteBuffer;

/** Receives records read from a {@link DurableLog}, on the reading thread, in index order. */
@FunctionalInterface
public interface RecordVisitor {
    /**
     * @param index  the record's index
     * @param record its bytes, read-only and valid only during the call
     */
    void visit(long index, ByteBuffer record);
}
