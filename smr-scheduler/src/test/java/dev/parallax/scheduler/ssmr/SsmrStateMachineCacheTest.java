package dev.parallax.scheduler.ssmr;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link SsmrStateMachine}'s snapshot with the caching state ({@link CachedExchange} rule 7, seed 004
 * (S-SMR) §IV-C): version 1 without it (as before caching), version 2 with it, a malformed cache
 * section refused with the state unchanged.
 */
class SsmrStateMachineCacheTest {
    private static byte[] snapshot(SsmrStateMachine m) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        m.snapshot(Channels.newChannel(out));
        return out.toByteArray();
    }

    private static void restore(SsmrStateMachine m, byte[] bytes) throws IOException {
        m.restore(Channels.newChannel(new ByteArrayInputStream(bytes)));
    }

    @Test
    void anEmptyCacheWritesVersionOneAndAFullOneVersionTwo() throws IOException {
        SsmrStateMachine m = new SsmrStateMachine(new Registers(2));
        assertThat(ByteBuffer.wrap(snapshot(m)).getInt(4)).isEqualTo(SsmrStateMachine.VERSION);
        m.cache().held(1).put(new ReadCache.Key(new byte[]{1}), new byte[]{9, 9}, 10, 100);
        m.cache().mirror(1).put(new ReadCache.Key(new byte[]{0}), new ReadCache.Seen(true, 8), 10, 100);
        byte[] bytes = snapshot(m);
        assertThat(ByteBuffer.wrap(bytes).getInt(4)).isEqualTo(SsmrStateMachine.VERSION_CACHE);
        SsmrStateMachine copy = new SsmrStateMachine(new Registers(2));
        restore(copy, bytes);
        assertThat(copy.cache().held(1).get(new ReadCache.Key(new byte[]{1}))).containsExactly(9, 9);
        assertThat(copy.cache().mirror(1).get(new ReadCache.Key(new byte[]{0})).current).isTrue();
        restore(copy, snapshot(new SsmrStateMachine(new Registers(2))));
        assertThat(copy.cache().isEmpty()).as("a version 1 snapshot holds no caching state").isTrue();
    }

    @Test
    void aMalformedCacheSectionIsRefusedAndChangesNothing() throws IOException {
        SsmrStateMachine m = new SsmrStateMachine(new Registers(2));
        m.cache().held(1).put(new ReadCache.Key(new byte[]{1}), new byte[]{9}, 10, 100);
        byte[] bytes = snapshot(m);
        ByteBuffer.wrap(bytes).putInt(20, 1000); // the owners count
        SsmrStateMachine target = new SsmrStateMachine(new Registers(2));
        target.cache().held(0).put(new ReadCache.Key(new byte[]{0}), new byte[]{5}, 10, 100);
        assertThatThrownBy(() -> restore(target, bytes)).isInstanceOf(IOException.class);
        assertThat(target.cache().heldEntries()).isEqualTo(1);
    }
}
