package dev.parallax.core;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The default capture ({@link StateMachine#capture}, {@link SnapshotCapture#inMemory}). */
class SnapshotCaptureTest {

    /** A byte array state, written in pieces of awkward sizes; closes its stream like careless code does. */
    private static final class Bytes implements StateMachine {
        byte[] state;

        Bytes(byte[] state) {
            this.state = state;
        }

        @Override
        public ByteBuffer execute(ByteBuffer command) {
            state[0]++;
            return ByteBuffer.allocate(0);
        }

        @Override
        public void snapshot(WritableByteChannel out) throws IOException {
            try (OutputStream o = Channels.newOutputStream(out)) {
                for (int i = 0; i < state.length; i += 7_919) {
                    o.write(state, i, Math.min(7_919, state.length - i));
                }
            }
        }

        @Override
        public void restore(ReadableByteChannel in) {
            throw new UnsupportedOperationException("not needed here");
        }
    }

    private static byte[] written(SnapshotCapture c) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        c.writeTo(Channels.newChannel(out));
        return out.toByteArray();
    }

    @Test
    void theDefaultCaptureHoldsTheStateAsItWasWhenCapturedAcrossManyChunks() throws IOException {
        byte[] state = new byte[3_000_000]; // spans chunks of 64 KiB, 128 KiB, ... 2 MiB
        new Random(1).nextBytes(state);
        state[0] = 0;
        Bytes sm = new Bytes(state.clone());

        SnapshotCapture c = sm.capture();
        sm.execute(ByteBuffer.allocate(0)); // a later command changes the live state
        sm.state[state.length - 1] ^= 1;

        assertThat(written(c)).as("the bytes of the state at capture time, although the serializer closed its stream")
                .isEqualTo(state);
        c.close();
        assertThatThrownBy(() -> written(c)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anEmptyStateCapturesNoBytes() throws IOException {
        SnapshotCapture c = SnapshotCapture.inMemory(out -> { });
        assertThat(written(c)).isEmpty();
    }

    @Test
    void aSerializerThatFailsFailsTheCapture() {
        assertThatThrownBy(() -> SnapshotCapture.inMemory(out -> {
            throw new IOException("injected");
        })).isInstanceOf(IOException.class).hasMessage("injected");
    }
}
