package dev.parallax.examples.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parallax.core.SnapshotCapture;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A store split into partitions ({@link KvStateMachine#KvStateMachine(int)}) answers, digests and
 * snapshots exactly like the one-partition store, and snapshots move between partition counts.
 */
class KvPartitionedStateMachineTest {

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4, 7, 64})
    void partitionedStoreEqualsTheOnePartitionStore(int partitions) throws IOException {
        for (long seed = 0; seed < 20; seed++) {
            KvStateMachine split = new KvStateMachine(partitions);
            KvStateMachine one = new KvStateMachine();
            assertThat(split.partitions()).isEqualTo(partitions);
            KvCommandMix mix = new KvCommandMix(seed, 40);
            for (byte[] command : mix.next(400)) {
                assertThat(outcome(split, command)).isEqualTo(outcome(one, command));
                assertThat(split.digest()).isEqualTo(one.digest());
                assertThat(split.size()).isEqualTo(one.size());
            }
            assertThat(KvTesting.snapshot(split)).isEqualTo(KvTesting.snapshot(one));
            try (SnapshotCapture a = split.capture(); SnapshotCapture b = one.capture()) {
                for (byte[] command : mix.next(50)) { // changes after the capture do not reach it
                    assertThat(outcome(split, command)).isEqualTo(outcome(one, command));
                }
                assertThat(written(a)).isEqualTo(written(b));
            }
            assertThat(KvTesting.snapshot(split)).isEqualTo(KvTesting.snapshot(one));
            assertThat(split.digest()).isEqualTo(one.digest());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4, 5})
    void snapshotsRestoreIntoAnyPartitionCount(int restoredPartitions) throws IOException {
        for (int writtenPartitions : new int[] {1, 3, 4}) {
            KvStateMachine original = new KvStateMachine(writtenPartitions);
            KvCommandMix mix = new KvCommandMix(writtenPartitions, 60);
            mix.next(300).forEach(c -> outcome(original, c));
            byte[] snapshot = KvTesting.snapshot(original);

            KvStateMachine restored = new KvStateMachine(restoredPartitions);
            restored.execute(KvCommand.of(KvOp.SET, KvTesting.b("stale"), KvTesting.b("x")).encode());
            KvTesting.restore(restored, snapshot);

            assertThat(restored.digest()).isEqualTo(original.digest());
            assertThat(restored.size()).isEqualTo(original.size());
            assertThat(restored.valueOf(KvTesting.b("stale"))).isNull();
            assertThat(KvTesting.snapshot(restored)).isEqualTo(snapshot);
            for (byte[] command : mix.next(300)) { // every key is found in its partition
                assertThat(outcome(restored, command)).isEqualTo(outcome(original, command));
            }
            assertThat(KvTesting.snapshot(restored)).isEqualTo(KvTesting.snapshot(original));
        }
    }

    @Test
    void aFailedRestoreLeavesEveryPartitionAsItWas() {
        KvStateMachine sm = new KvStateMachine(4);
        new KvCommandMix(9, 30).next(100).forEach(c -> outcome(sm, c));
        byte[] before = KvTesting.snapshot(sm);
        long digest = sm.digest();
        byte[] truncated = java.util.Arrays.copyOf(before, before.length - 1);
        assertThatThrownBy(() -> KvTesting.restore(sm, truncated)).isInstanceOf(IOException.class);
        assertThat(sm.digest()).isEqualTo(digest);
        assertThat(KvTesting.snapshot(sm)).isEqualTo(before);
    }

    @Test
    void dbsizeAndFlushallCoverEveryPartition() {
        KvStateMachine sm = new KvStateMachine(4);
        KvRouter router = new KvRouter(4);
        List<Integer> groups = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            byte[] key = KvTesting.b("k" + i);
            KvTesting.run(sm, KvOp.SET, key, key);
            groups.add(router.groupOf(key));
        }
        assertThat(groups).contains(0, 1, 2, 3); // the keys spread over every partition
        assertThat(KvTesting.run(sm, KvOp.DBSIZE, new byte[0][])).isEqualTo(new KvReply.Int(64));
        assertThat(KvTesting.run(sm, KvOp.FLUSHALL, new byte[0][])).isEqualTo(KvReply.OK);
        assertThat(sm.size()).isZero();
        assertThat(sm.digest()).isEqualTo(new KvStateMachine().digest());
    }

    @Test
    void rejectsAnInvalidPartitionCount() {
        assertThatThrownBy(() -> new KvStateMachine(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new KvStateMachine(65)).isInstanceOf(IllegalArgumentException.class);
    }

    /** The reply, or the rejection's type and message. */
    static Object outcome(KvStateMachine sm, byte[] command) {
        try {
            return KvReply.decode(sm.execute(ByteBuffer.wrap(command)));
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    private static byte[] written(SnapshotCapture capture) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        capture.writeTo(Channels.newChannel(out));
        return out.toByteArray();
    }
}
