package dev.parallax.core;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The bytes of {@link SnapshotCapture#inMemory}: first filled through {@link #sink()}, the channel
 * the state machine serializes into, then (once {@link #seal sealed}) a capture that writes them
 * out. Chunks double from 64 KiB to 8 MiB, so a large state is not copied again as it grows and may
 * exceed 2 GiB.
 *
 * <p>Threads: filled by one thread, then handed (through the replica's hand-off to its writer
 * thread, a happens-before edge) to another that calls {@link #writeTo} and {@link #close}.
 */
final class InMemorySnapshot implements SnapshotCapture {
    private static final int FIRST_CHUNK = 64 << 10;
    private static final int MAX_CHUNK = 8 << 20;

    private final List<ByteBuffer> chunks = new ArrayList<>();
    private ByteBuffer current;
    private boolean sealed;
    private boolean released;

    private final WritableByteChannel sink = new WritableByteChannel() {
        @Override
        public int write(ByteBuffer src) throws IOException {
            return append(src);
        }

        @Override
        public boolean isOpen() {
            return !sealed;
        }

        /** A serializer that closes its stream does not end the capture (the store's channel behaves alike). */
        @Override
        public void close() {
        }
    };

    /** The channel to serialize into until {@link #seal}; it accepts every byte of each write. */
    WritableByteChannel sink() {
        return sink;
    }

    private int append(ByteBuffer src) throws IOException {
        if (sealed) {
            throw new ClosedChannelException();
        }
        int n = src.remaining();
        while (src.hasRemaining()) {
            if (current == null || !current.hasRemaining()) {
                int capacity = current == null ? FIRST_CHUNK : Math.min(MAX_CHUNK, current.capacity() * 2);
                current = ByteBuffer.allocate(capacity);
                chunks.add(current);
            }
            int k = Math.min(src.remaining(), current.remaining());
            current.put(src.slice(src.position(), k));
            src.position(src.position() + k);
        }
        return n;
    }

    /** No more writes: the bytes are the capture from now on. */
    InMemorySnapshot seal() {
        sealed = true;
        return this;
    }

    @Override
    public void writeTo(WritableByteChannel out) throws IOException {
        if (released) {
            throw new IllegalStateException("capture already closed");
        }
        for (ByteBuffer chunk : chunks) {
            ByteBuffer b = chunk.duplicate().flip();
            while (b.hasRemaining()) {
                out.write(b);
            }
        }
    }

    /** Drops the bytes. */
    @Override
    public void close() {
        released = true;
        sealed = true;
        chunks.clear();
        current = null;
    }
}
