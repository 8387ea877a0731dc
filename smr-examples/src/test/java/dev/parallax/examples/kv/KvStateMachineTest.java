package dev.parallax.examples.kv;

import static dev.parallax.examples.kv.KvTesting.b;
import static dev.parallax.examples.kv.KvTesting.bulk;
import static dev.parallax.examples.kv.KvTesting.run;
import static dev.parallax.examples.kv.KvTesting.snapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parallax.core.SnapshotCapture;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KvStateMachineTest {
    private final KvStateMachine sm = new KvStateMachine();

    @Test
    void getOfAbsentKeyIsNil() {
        assertThat(run(sm, KvOp.GET, "k")).isEqualTo(KvReply.NIL);
    }

    @Test
    void setThenGetReturnsValueAndSetOverwrites() {
        assertThat(run(sm, KvOp.SET, "k", "v1")).isEqualTo(KvReply.OK);
        assertThat(run(sm, KvOp.GET, "k")).isEqualTo(bulk("v1"));
        assertThat(run(sm, KvOp.SET, "k", "v2")).isEqualTo(KvReply.OK);
        assertThat(run(sm, KvOp.GET, "k")).isEqualTo(bulk("v2"));
        assertThat(sm.size()).isEqualTo(1);
    }

    @Test
    void setIfAbsentOnlyStoresNewKeys() {
        assertThat(run(sm, KvOp.SET_IF_ABSENT, "k", "a")).isEqualTo(KvReply.OK);
        assertThat(run(sm, KvOp.SET_IF_ABSENT, "k", "b")).isEqualTo(KvReply.NIL);
        assertThat(run(sm, KvOp.GET, "k")).isEqualTo(bulk("a"));
    }

    @Test
    void setIfPresentOnlyReplacesExistingKeys() {
        assertThat(run(sm, KvOp.SET_IF_PRESENT, "k", "a")).isEqualTo(KvReply.NIL);
        assertThat(run(sm, KvOp.GET, "k")).isEqualTo(KvReply.NIL);
        run(sm, KvOp.SET, "k", "a");
        assertThat(run(sm, KvOp.SET_IF_PRESENT, "k", "b")).isEqualTo(KvReply.OK);
        assertThat(run(sm, KvOp.GET, "k")).isEqualTo(bulk("b"));
    }

    @Test
    void delCountsRemovedKeysOnceEach() {
        run(sm, KvOp.MSET, "a", "1", "b", "2");
        assertThat(run(sm, KvOp.DEL, "a", "a", "b", "c")).isEqualTo(new KvReply.Int(2));
        assertThat(sm.size()).isZero();
        assertThat(run(sm, KvOp.DEL, "a")).isEqualTo(new KvReply.Int(0));
    }

    @Test
    void existsCountsRepeatedKeysEachTime() {
        run(sm, KvOp.SET, "a", "1");
        assertThat(run(sm, KvOp.EXISTS, "a", "a", "b")).isEqualTo(new KvReply.Int(2));
        assertThat(run(sm, KvOp.EXISTS, "b")).isEqualTo(new KvReply.Int(0));
    }

    @Test
    void incrStartsFromZeroAndStoresDecimalText() {
        assertThat(run(sm, KvOp.INCR, "n")).isEqualTo(new KvReply.Int(1));
        assertThat(run(sm, KvOp.INCR, "n")).isEqualTo(new KvReply.Int(2));
        assertThat(run(sm, KvOp.GET, "n")).isEqualTo(bulk("2"));
        run(sm, KvOp.SET, "m", "-5");
        assertThat(run(sm, KvOp.INCR, "m")).isEqualTo(new KvReply.Int(-4));
        run(sm, KvOp.SET, "min", Long.toString(Long.MIN_VALUE));
        assertThat(run(sm, KvOp.INCR, "min")).isEqualTo(new KvReply.Int(Long.MIN_VALUE + 1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "", " 1", "1 ", "+1", "01", "-0", "1.5", "9223372036854775808",
        "-9223372036854775809", "99999999999999999999", "--1", "-"})
    void incrOnNonIntegerIsRejectedWithRedisTextAndLeavesValue(String value) {
        run(sm, KvOp.SET, "k", value);
        byte[] before = snapshot(sm);
        assertThatThrownBy(() -> run(sm, KvOp.INCR, "k"))
                .isInstanceOf(KvCommandException.class)
                .hasMessage("ERR value is not an integer or out of range");
        assertThat(run(sm, KvOp.GET, "k")).isEqualTo(bulk(value));
        assertThat(snapshot(sm)).isEqualTo(before);
    }

    @Test
    void incrAtMaximumOverflowsWithRedisText() {
        run(sm, KvOp.SET, "k", Long.toString(Long.MAX_VALUE));
        assertThatThrownBy(() -> run(sm, KvOp.INCR, "k"))
                .isInstanceOf(KvCommandException.class)
                .hasMessage("ERR increment or decrement would overflow");
        assertThat(run(sm, KvOp.GET, "k")).isEqualTo(bulk(Long.toString(Long.MAX_VALUE)));
    }

    @Test
    void strlenIsTheLengthOfTheValueInBytesAndZeroForAnAbsentKey() {
        assertThat(run(sm, KvOp.STRLEN, "k")).isEqualTo(new KvReply.Int(0));
        run(sm, KvOp.SET, "k", "hello");
        assertThat(run(sm, KvOp.STRLEN, "k")).isEqualTo(new KvReply.Int(5));
        run(sm, KvOp.SET, b("bin"), new byte[] {0, (byte) 0xff, '\r', '\n'});
        assertThat(run(sm, KvOp.STRLEN, "bin")).as("binary-safe: bytes, not characters").isEqualTo(new KvReply.Int(4));
        run(sm, KvOp.SET, "utf", "\u00e9t\u00e9");
        assertThat(run(sm, KvOp.STRLEN, "utf")).as("UTF-8 bytes").isEqualTo(new KvReply.Int(5));
        run(sm, KvOp.SET, "empty", "");
        assertThat(run(sm, KvOp.STRLEN, "empty")).isEqualTo(new KvReply.Int(0));
        run(sm, KvOp.INCR, "n");
        assertThat(run(sm, KvOp.STRLEN, "n")).isEqualTo(new KvReply.Int(1));
        assertThat(sm.size()).as("STRLEN of an absent key creates nothing").isEqualTo(5);
    }

    @Test
    void strlenTakesExactlyOneKey() {
        assertThatThrownBy(() -> KvCommand.of(KvOp.STRLEN)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("malformed KV command: STRLEN does not take 0 arguments");
        assertThatThrownBy(() -> KvCommand.of(KvOp.STRLEN, b("a"), b("b"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("malformed KV command: STRLEN does not take 2 arguments");
        ByteBuffer twoKeys = ByteBuffer.wrap(new byte[] {KvOp.STRLEN.code(), 0, 0, 0, 2, 0, 0, 0, 1, 'a', 0, 0, 0, 1, 'b'});
        assertThatThrownBy(() -> sm.execute(twoKeys)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("malformed KV command: STRLEN does not take 2 arguments");
    }

    @Test
    void mgetReturnsValuesInKeyOrderWithNilForAbsent() {
        run(sm, KvOp.MSET, "a", "1", "c", "3");
        assertThat(run(sm, KvOp.MGET, "a", "b", "c", "a"))
                .isEqualTo(new KvReply.Multi(List.of(bulk("1"), KvReply.NIL, bulk("3"), bulk("1"))));
    }

    @Test
    void msetLaterPairsWin() {
        assertThat(run(sm, KvOp.MSET, "a", "1", "a", "2")).isEqualTo(KvReply.OK);
        assertThat(run(sm, KvOp.GET, "a")).isEqualTo(bulk("2"));
    }

    @Test
    void keysAndValuesAreBinarySafe() {
        byte[] key = {0, (byte) 0xff, '\r', '\n', 0, 'k'};
        byte[] otherKey = {0, (byte) 0xff, '\r', '\n', 0};
        byte[] value = new byte[256];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) i;
        }
        run(sm, KvOp.SET, key, value);
        run(sm, KvOp.SET, otherKey, new byte[0]);
        assertThat(run(sm, KvOp.GET, key)).isEqualTo(new KvReply.Bulk(value));
        assertThat(run(sm, KvOp.GET, otherKey)).isEqualTo(new KvReply.Bulk(new byte[0]));
        assertThat(run(sm, KvOp.EXISTS, key.clone(), otherKey.clone(), new byte[] {0})).isEqualTo(new KvReply.Int(2));
    }

    @Test
    void storedValueDoesNotAliasCallerArrays() {
        byte[] value = b("abc");
        ByteBuffer command = KvCommand.of(KvOp.SET, b("k"), value).encode();
        sm.execute(command);
        command.put(command.limit() - 1, (byte) 'X');
        value[0] = 'X';
        assertThat(run(sm, KvOp.GET, "k")).isEqualTo(bulk("abc"));
    }

    private static final String[] NO_ARGS = new String[0];

    @Test
    void dbsizeCountsTheKeys() {
        assertThat(run(sm, KvOp.DBSIZE, NO_ARGS)).isEqualTo(new KvReply.Int(0));
        run(sm, KvOp.MSET, "a", "1", "b", "2", "a", "3");
        assertThat(run(sm, KvOp.DBSIZE, NO_ARGS)).isEqualTo(new KvReply.Int(2));
        run(sm, KvOp.DEL, "a");
        assertThat(run(sm, KvOp.DBSIZE, NO_ARGS)).isEqualTo(new KvReply.Int(1));
    }

    @Test
    void flushallRemovesEveryKeyAndLeavesTheStateOfAFreshStore() {
        run(sm, KvOp.MSET, "a", "1", "b", "2");
        run(sm, KvOp.INCR, "n");
        assertThat(run(sm, KvOp.FLUSHALL, NO_ARGS)).isEqualTo(KvReply.OK);
        assertThat(sm.size()).isZero();
        assertThat(run(sm, KvOp.MGET, "a", "b", "n")).isEqualTo(
                new KvReply.Multi(List.of(KvReply.NIL, KvReply.NIL, KvReply.NIL)));
        KvStateMachine fresh = new KvStateMachine();
        assertThat(sm.digest()).isEqualTo(fresh.digest());
        assertThat(snapshot(sm)).isEqualTo(snapshot(fresh));
        run(sm, KvOp.SET, "c", "3");
        run(fresh, KvOp.SET, "c", "3");
        assertThat(sm.digest()).isEqualTo(fresh.digest());
        assertThat(run(sm, KvOp.FLUSHALL, NO_ARGS)).as("on an empty store too").isEqualTo(KvReply.OK);
        assertThat(run(sm, KvOp.FLUSHALL, NO_ARGS)).isEqualTo(KvReply.OK);
        assertThat(run(sm, KvOp.DBSIZE, NO_ARGS)).isEqualTo(new KvReply.Int(0));
    }

    @Test
    void flushallWhileACaptureIsOpenLeavesTheCaptureItsPointInTime() throws Exception {
        run(sm, KvOp.MSET, "a", "1", "b", "2");
        byte[] atCapture = snapshot(sm);
        try (SnapshotCapture capture = sm.capture()) {
            run(sm, KvOp.FLUSHALL, NO_ARGS);
            run(sm, KvOp.SET, "c", "3");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            capture.writeTo(Channels.newChannel(out));
            assertThat(out.toByteArray()).isEqualTo(atCapture);
        }
        run(sm, KvOp.SET, "d", "4");
        assertThat(run(sm, KvOp.MGET, "a", "c", "d")).isEqualTo(
                new KvReply.Multi(List.of(KvReply.NIL, bulk("3"), bulk("4"))));
        assertThat(sm.size()).isEqualTo(2);
    }

    @Test
    void globalOpsWithArgumentsAreMalformed() {
        for (KvOp op : List.of(KvOp.DBSIZE, KvOp.FLUSHALL)) {
            assertThatThrownBy(() -> KvCommand.of(op, b("k"))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("malformed KV command: " + op + " does not take 1 arguments");
            byte[] withArg = {op.code(), 0, 0, 0, 1, 0, 0, 0, 0};
            assertThatThrownBy(() -> sm.execute(ByteBuffer.wrap(withArg)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("malformed KV command: ");
        }
    }

    @Test
    void malformedCommandsAreRejectedWithClearMessageAndNoEffect() {
        run(sm, KvOp.SET, "k", "v");
        byte[] before = snapshot(sm);
        ByteBuffer valid = KvCommand.of(KvOp.SET, b("k"), b("changed")).encode();
        byte[] bytes = Arrays.copyOf(valid.array(), valid.remaining());
        List<byte[]> malformed = List.of(
                new byte[0],
                new byte[] {99, 0, 0, 0, 0},
                Arrays.copyOf(bytes, bytes.length - 1),
                Arrays.copyOf(bytes, bytes.length + 1),
                new byte[] {KvOp.GET.code(), 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0},
                new byte[] {KvOp.GET.code(), 0, 0, 0, 1, (byte) 0x80, 0, 0, 0},
                new byte[] {KvOp.MSET.code(), 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff},
                new byte[] {KvOp.MSET.code(), 0, 0, 0, 1, 0, 0, 0, 0});
        for (byte[] m : malformed) {
            assertThatThrownBy(() -> sm.execute(ByteBuffer.wrap(m)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("malformed KV command: ");
        }
        assertThat(snapshot(sm)).isEqualTo(before);
    }

    @Test
    void executeDoesNotMoveTheCommandBuffer() {
        ByteBuffer command = KvCommand.of(KvOp.SET, b("k"), b("v")).encode();
        sm.execute(command);
        assertThat(command.position()).isZero();
    }

    @Test
    void snapshotRoundTripRestoresEveryEntry() throws IOException {
        run(sm, KvOp.MSET, "a", "1", "b", "", "c", "3");
        run(sm, KvOp.SET, new byte[] {0, (byte) 0x80}, new byte[100_000]);
        byte[] snap = snapshot(sm);

        KvStateMachine copy = new KvStateMachine();
        KvTesting.restore(copy, snap);
        assertThat(copy.size()).isEqualTo(4);
        assertThat(run(copy, KvOp.MGET, "a", "b", "c")).isEqualTo(run(sm, KvOp.MGET, "a", "b", "c"));
        assertThat(run(copy, KvOp.GET, new byte[] {0, (byte) 0x80})).isEqualTo(new KvReply.Bulk(new byte[100_000]));
        assertThat(snapshot(copy)).isEqualTo(snap);
    }

    @Test
    void snapshotOfLargeValuesSpansBufferBoundaries() throws IOException {
        byte[] big = new byte[3 * 1024 * 1024 + 7];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31);
        }
        for (int i = 0; i < 3; i++) {
            run(sm, KvOp.SET, b("big" + i), big);
            run(sm, KvOp.SET, b("small" + i), b("x"));
        }
        KvStateMachine copy = new KvStateMachine();
        KvTesting.restore(copy, snapshot(sm));
        assertThat(run(copy, KvOp.GET, "big2")).isEqualTo(new KvReply.Bulk(big));
        assertThat(snapshot(copy)).isEqualTo(snapshot(sm));
    }

    @Test
    void aCaptureIsWrittenOnAnotherThreadWhileCommandsChangeTheStoreAndHoldsItsPointInTime() throws Exception {
        KvStateMachine reference = new KvStateMachine();
        for (int i = 0; i < 20_000; i++) {
            run(sm, KvOp.SET, "k" + i, "v" + i);
            run(reference, KvOp.SET, "k" + i, "v" + i);
        }
        byte[] atCapture = snapshot(sm);
        SnapshotCapture capture = sm.capture();
        CountDownLatch changing = new CountDownLatch(1);
        CompletableFuture<byte[]> written = new CompletableFuture<>();
        Thread writer = new Thread(() -> {
            try (capture) {
                changing.await();
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                capture.writeTo(Channels.newChannel(out));
                written.complete(out.toByteArray());
            } catch (Exception e) {
                written.completeExceptionally(e);
            }
        }, "test-snapshot-writer");
        writer.start();
        for (int i = 0; i < 20_000; i++) {
            for (KvStateMachine m : List.of(sm, reference)) {
                run(m, KvOp.SET, "k" + i, "w" + i);
                run(m, KvOp.DEL, "k" + (i / 2));
                run(m, KvOp.INCR, "n" + (i % 100));
            }
            changing.countDown();
        }
        assertThat(written.get(30, TimeUnit.SECONDS)).as("the entries as they were at the capture").isEqualTo(atCapture);
        writer.join();
        run(sm, KvOp.SET, "after", "release"); // folds the changes made meanwhile
        run(reference, KvOp.SET, "after", "release");
        assertThat(snapshot(sm)).isEqualTo(snapshot(reference));
        assertThat(sm.digest()).isEqualTo(reference.digest());
        assertThat(sm.size()).isEqualTo(reference.size());
    }

    @Test
    void restoreReplacesTheWholeState() throws IOException {
        KvStateMachine source = new KvStateMachine();
        run(source, KvOp.SET, "kept", "1");
        run(sm, KvOp.SET, "dropped", "2");
        KvTesting.restore(sm, snapshot(source));
        assertThat(run(sm, KvOp.EXISTS, "dropped")).isEqualTo(new KvReply.Int(0));
        assertThat(run(sm, KvOp.GET, "kept")).isEqualTo(bulk("1"));
    }

    @Test
    void restoreOfEmptySnapshotEmptiesTheStore() throws IOException {
        run(sm, KvOp.SET, "k", "v");
        KvTesting.restore(sm, snapshot(new KvStateMachine()));
        assertThat(sm.size()).isZero();
    }

    @Test
    void malformedSnapshotsFailAndLeaveStateUnchanged() {
        KvStateMachine source = new KvStateMachine();
        run(source, KvOp.MSET, "a", "1", "b", "2");
        byte[] good = snapshot(source);
        run(sm, KvOp.SET, "mine", "x");
        byte[] before = snapshot(sm);

        byte[] badMagic = good.clone();
        badMagic[0] = 'X';
        byte[] badVersion = good.clone();
        badVersion[7] = 9;
        byte[] hugeLength = good.clone();
        hugeLength[16] = 0x7f;
        for (byte[] bad : List.of(badMagic, badVersion, hugeLength, Arrays.copyOf(good, good.length - 1),
                Arrays.copyOf(good, good.length + 1), Arrays.copyOf(good, 10), new byte[0])) {
            assertThatThrownBy(() -> KvTesting.restore(sm, bad)).isInstanceOf(IOException.class);
            assertThat(snapshot(sm)).isEqualTo(before);
        }
    }

    @Test
    void snapshotIsIndependentOfInsertionOrder() {
        KvStateMachine other = new KvStateMachine();
        run(sm, KvOp.MSET, "a", "1", "b", "2", "c", "3");
        run(other, KvOp.SET, "c", "3");
        run(other, KvOp.SET, "x", "9");
        run(other, KvOp.SET, "a", "1");
        run(other, KvOp.DEL, "x");
        run(other, KvOp.SET, "b", "2");
        assertThat(snapshot(other)).isEqualTo(snapshot(sm));
    }
}
