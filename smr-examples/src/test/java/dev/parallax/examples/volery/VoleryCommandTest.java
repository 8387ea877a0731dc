package dev.parallax.examples.volery;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Volery command encoding: round trips, bounds checks, and malformed bytes. */
class VoleryCommandTest {
    private static final List<VoleryCommand> SAMPLES = List.of(
            new Create("/a/b", new byte[] {1, 2, 3}, CreateMode.PERSISTENT),
            new Create("/q/", new byte[0], CreateMode.PERSISTENT_SEQUENTIAL),
            new Create("/e", new byte[] {9}, CreateMode.EPHEMERAL, 0L, 0x42L, 4000),
            new Delete("/a", -1),
            new Delete("/ü", 7),
            new SetData("/a", new byte[1000], 3),
            new SetData("/", new byte[0], -1),
            new GetData("/a"),
            new Exists("not/valid/"),
            new GetChildren(""));

    @Test
    void everyCommandRoundTrips() {
        for (VoleryCommand c : SAMPLES) {
            VoleryCommand.Decoded d = VoleryCommand.decode(c.encode());
            assertThat(d.ok()).as("%s", c).isTrue();
            assertThat(d.error()).isNull();
            assertThat(d.command()).isEqualTo(c).hasSameHashCodeAs(c);
            assertThat(d.command().encode()).isEqualTo(c.encode());
        }
    }

    @Test
    void aStampedTimeRoundTripsAsEightTrailingBytesAndAnUnstampedCommandEncodesAsBefore() {
        Create create = new Create("/a", new byte[] {1}, CreateMode.PERSISTENT);
        SetData set = new SetData("/a", new byte[] {2}, 4);
        for (VoleryCommand c : List.of(create, set)) {
            assertThat(c.time()).isZero();
            VoleryCommand stamped = c.withTime(1_700_000_000_123L);
            assertThat(stamped.time()).isEqualTo(1_700_000_000_123L);
            assertThat(stamped).isNotEqualTo(c);
            byte[] plain = c.encode();
            byte[] timed = stamped.encode();
            assertThat(timed).hasSize(plain.length + 8);
            assertThat(Arrays.copyOf(timed, plain.length)).isEqualTo(plain);
            assertThat(ByteBuffer.wrap(timed, plain.length, 8).getLong()).isEqualTo(1_700_000_000_123L);
            assertThat(VoleryCommand.decode(timed).command()).isEqualTo(stamped);
            assertThat(VoleryCommand.decode(plain).command()).isEqualTo(c);
            // an explicit zero time decodes to the unstamped command
            assertThat(VoleryCommand.decode(Arrays.copyOf(plain, plain.length + 8)).command()).isEqualTo(c);
            for (int extra : new int[] {1, 7, 9}) {
                assertThat(VoleryCommand.decode(Arrays.copyOf(timed, plain.length + extra)).ok()).isFalse();
            }
        }
        assertThat(new Create("/a", new byte[0], CreateMode.PERSISTENT, 5).toString()).contains("t=5");
        for (VoleryCommand c : List.of(new Delete("/a", 1), new GetData("/a"),
                new Exists("/a"), new GetChildren("/a"))) {
            assertThat(c.withTime(5)).isSameAs(c);
            assertThat(c.time()).isZero();
            byte[] encoded = c.encode();
            assertThat(VoleryCommand.decode(Arrays.copyOf(encoded, encoded.length + 8)).error())
                    .contains("8 trailing bytes");
        }
    }

    @Test
    void writesWithDataPrintTheirSizeAndTimeCopyTheirDataAndRefuseNulls() {
        byte[] data = {1, 2};
        Create create = new Create("/a", data, CreateMode.PERSISTENT_SEQUENTIAL);
        SetData set = new SetData("/a", data, 3, 5);
        assertThat(create).hasToString("Create[/a, 2B, PERSISTENT_SEQUENTIAL]");
        assertThat(create.withTime(7)).hasToString("Create[/a, 2B, PERSISTENT_SEQUENTIAL, t=7]");
        assertThat(set).hasToString("SetData[/a, 2B, v3, t=5]");
        assertThat(new SetData("/a", new byte[0], -1)).hasToString("SetData[/a, 0B, v-1]");
        data[0] = 9;
        assertThat(create.data()).containsExactly(1, 2);
        assertThat(set.data()).containsExactly(1, 2);
        assertThatThrownBy(() -> new Create(null, data, CreateMode.PERSISTENT))
                .isInstanceOf(NullPointerException.class).hasMessage("path");
        assertThatThrownBy(() -> new Create("/a", data, null))
                .isInstanceOf(NullPointerException.class).hasMessage("mode");
        assertThatThrownBy(() -> new SetData(null, data, 0))
                .isInstanceOf(NullPointerException.class).hasMessage("path");
        assertThatThrownBy(() -> new SetData("/a", null, 0)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new SetData("/a", new byte[VoleryCommand.MAX_DATA_BYTES + 1], 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exceeds");
    }

    @Test
    void opcodesAreZooKeepers() {
        assertThat(SAMPLES.stream().map(c -> (int) c.encode()[0]).distinct())
                .containsExactly(1, 2, 5, 4, 3, 8);
        assertThat(SAMPLES.stream().filter(VoleryCommand::isGlobal).map(VoleryCommand::opcode).distinct())
                .containsExactlyInAnyOrder(VoleryCommand.OP_CREATE, VoleryCommand.OP_DELETE);
        assertThat(SAMPLES.stream().filter(VoleryCommand::isWrite).map(VoleryCommand::opcode).distinct())
                .containsExactlyInAnyOrder(VoleryCommand.OP_CREATE, VoleryCommand.OP_DELETE, VoleryCommand.OP_SET_DATA);
    }

    @Test
    void decodingReadsFromPositionToLimitWithoutMovingThem() {
        byte[] encoded = SAMPLES.get(0).encode();
        ByteBuffer b = ByteBuffer.allocate(encoded.length + 6);
        b.position(3);
        b.put(encoded);
        b.flip().position(3);
        VoleryCommand.Decoded d = VoleryCommand.decode(b);
        assertThat(d.command()).isEqualTo(SAMPLES.get(0));
        assertThat(b.position()).isEqualTo(3);
        assertThat(b.limit()).isEqualTo(3 + encoded.length);
    }

    @Test
    void everyTruncationIsMalformed() {
        for (VoleryCommand c : SAMPLES) {
            byte[] encoded = c.encode();
            for (int length = 0; length < encoded.length; length++) {
                VoleryCommand.Decoded d = VoleryCommand.decode(Arrays.copyOf(encoded, length));
                assertThat(d.ok()).as("%s cut to %d", c, length).isFalse();
                assertThat(d.command()).isNull();
                assertThat(d.error()).startsWith("malformed Volery command: ");
            }
        }
    }

    private static final List<VoleryCommand> WATCH_SAMPLES = List.of(
            new GetData("/a", new Watcher(3, -5)),
            new Exists("/x", new Watcher(255, Long.MAX_VALUE)),
            new GetChildren("/p", new Watcher(0, 1)),
            new WatchPoll(1, 2, 3),
            new WatchDrop(0, 3, WatchDrop.ALL_SESSIONS),
            new WatchDrop(2, 1, 42),
            new AddWatch("/r", true, new Watcher(7, 9)),
            new AddWatch("/p", false, new Watcher(7, -9)),
            new RemoveWatches("/p", 3, new Watcher(0, 0)));

    @Test
    void watchingReadsAndTheFrontEndsWatchCommandsRoundTripAndTheirTruncationsAreMalformed() {
        for (VoleryCommand c : WATCH_SAMPLES) {
            byte[] encoded = c.encode();
            assertThat(VoleryCommand.decode(encoded).command()).as("%s", c).isEqualTo(c);
            assertThat(VoleryCommand.decode(Arrays.copyOf(encoded, encoded.length + 1)).ok()).isFalse();
            for (int length = 0; length < encoded.length; length++) {
                VoleryCommand.Decoded d = VoleryCommand.decode(Arrays.copyOf(encoded, length));
                boolean read = c instanceof GetData || c instanceof Exists
                        || c instanceof GetChildren;
                if (read && length == encoded.length - 12) {
                    assertThat(d.command()).as("without its watcher: the plain read").isNotNull()
                            .extracting(VoleryCommand::watcher).isNull();
                } else {
                    assertThat(d.ok()).as("%s cut to %d", c, length).isFalse();
                }
            }
            assertThat(c.isWrite()).isFalse();
            assertThat(c.isGlobal()).isFalse();
        }
        assertThat(new AddWatch("/r", true, new Watcher(0, 0)).toEveryPartition()).isTrue();
        assertThat(new AddWatch("/r", false, new Watcher(0, 0)).toEveryPartition()).isFalse();
        assertThat(new RemoveWatches("/r", 1, new Watcher(0, 0)).toEveryPartition()).isTrue();
        byte[] add = new AddWatch("/r", true, new Watcher(0, 0)).encode();
        add[1 + 4 + 2] = 2;
        assertThat(VoleryCommand.decode(add).error()).contains("addWatch mode 2");
        byte[] remove = new RemoveWatches("/r", 1, new Watcher(0, 0)).encode();
        ByteBuffer.wrap(remove).putInt(1 + 4 + 2, 4);
        assertThat(VoleryCommand.decode(remove).error()).contains("removeWatches type 4");
        assertThat(new WatchPoll(1, 2, 3).targetPartition()).isEqualTo(1);
        assertThat(new GetData("/a").targetPartition()).isEqualTo(-1);
        assertThat(new GetData("/a")).isEqualTo(new GetData("/a", null));
        // a watch command names no path; the front-end id fits a byte; a poll acknowledges no negative number
        byte[] poll = new WatchPoll(1, 2, 3).encode();
        byte[] withPath = ByteBuffer.allocate(poll.length + 2).put(VoleryCommand.OP_WATCH_POLL).putInt(2)
                .put((byte) '/').put((byte) 'a').put(poll, 5, poll.length - 5).array();
        assertThat(VoleryCommand.decode(withPath).error()).contains("with a path");
        ByteBuffer badFrontEnd = ByteBuffer.wrap(poll.clone());
        badFrontEnd.putInt(9, 256);
        assertThat(VoleryCommand.decode(badFrontEnd.array()).error()).contains("out of range");
        ByteBuffer negativeAck = ByteBuffer.wrap(poll.clone());
        negativeAck.putLong(13, -1);
        assertThat(VoleryCommand.decode(negativeAck.array()).error()).contains("out of range");
        assertThatThrownBy(() -> new WatchPoll(-1, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Watcher(256, 0)).isInstanceOf(IllegalArgumentException.class);
        byte[] read = new GetData("/a", new Watcher(1, 1)).encode();
        ByteBuffer.wrap(read).putInt(read.length - 12, -1);
        assertThat(VoleryCommand.decode(read).error()).contains("front end -1 outside 0..255");
    }

    @Test
    void trailingBytesAreMalformed() {
        for (VoleryCommand c : SAMPLES) {
            byte[] longer = Arrays.copyOf(c.encode(), c.encode().length + 1);
            assertThat(VoleryCommand.decode(longer).error()).contains("1 trailing bytes");
        }
    }

    @Test
    void badFieldsAreMalformedWithTheReason() {
        assertThat(VoleryCommand.decode((byte[]) null).error()).contains("no bytes");
        assertThat(VoleryCommand.decode((ByteBuffer) null).error()).contains("no bytes");
        assertThat(VoleryCommand.decode(new byte[0]).error()).contains("truncated");
        assertThat(VoleryCommand.decode(frame(9, "/a")).error()).contains("unknown opcode 9");
        assertThat(VoleryCommand.decode(frame(0, "/a")).error()).contains("unknown opcode 0");
        assertThat(VoleryCommand.decode(ByteBuffer.allocate(5).put((byte) 4).putInt(-1).array()).error())
                .contains("bad path length -1");
        assertThat(VoleryCommand.decode(ByteBuffer.allocate(5).put((byte) 4).putInt(VoleryCommand.MAX_PATH_BYTES + 1)
                .array()).error()).contains("bad path length");
        assertThat(VoleryCommand.decode(ByteBuffer.allocate(6).put((byte) 4).putInt(1).put((byte) 0xff).array())
                .error()).contains("UTF-8");
        byte[] create = new Create("/a", new byte[] {1}, CreateMode.PERSISTENT).encode();
        ByteBuffer.wrap(create).putInt(1 + 4 + 2, 7);
        assertThat(VoleryCommand.decode(create).error()).contains("unknown create mode 7");
        byte[] negative = new SetData("/a", new byte[] {1}, 0).encode();
        ByteBuffer.wrap(negative).putInt(1 + 4 + 2 + 4, -5);
        assertThat(VoleryCommand.decode(negative).error()).contains("bad data length");
        byte[] tooLong = ByteBuffer.allocate(1 + 4 + 2 + 4 + 4).put((byte) 5).putInt(2).put("/a".getBytes())
                .putInt(0).putInt(VoleryCommand.MAX_DATA_BYTES + 1).array();
        assertThat(VoleryCommand.decode(tooLong).error()).contains("bad data length");
    }

    @Test
    void theLargestDataDecodes() {
        VoleryCommand big = new SetData("/a", new byte[VoleryCommand.MAX_DATA_BYTES], 0);
        assertThat(VoleryCommand.decode(big.encode()).command()).isEqualTo(big);
    }

    @Test
    void constructorsRefuseWhatCouldNotBeDecoded() {
        String longPath = "/" + "p".repeat(VoleryCommand.MAX_PATH_BYTES);
        byte[] bigData = new byte[VoleryCommand.MAX_DATA_BYTES + 1];
        assertThatThrownBy(() -> new Create("/a", bigData, CreateMode.PERSISTENT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("data of");
        assertThatThrownBy(() -> new SetData("/a", bigData, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("data of");
        assertThatThrownBy(() -> new GetData(longPath))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("path of");
        assertThatThrownBy(() -> new Delete(longPath, 0)).isInstanceOf(IllegalArgumentException.class);
        String longest = "/" + "p".repeat(VoleryCommand.MAX_PATH_BYTES - 1);
        assertThat(VoleryCommand.decode(new Exists(longest).encode()).command().path()).isEqualTo(longest);
    }

    @Test
    void commandsCopyTheirData() {
        byte[] data = {1};
        Create c = new Create("/a", data, CreateMode.PERSISTENT);
        data[0] = 2;
        c.data()[0] = 3;
        assertThat(c.data()).containsExactly(1);
    }

    @Test
    void applyingACommandIsCallingTheTree() {
        ZnodeTree tree = new ZnodeTree();
        assertThat(tree.apply(SAMPLES.get(0), 1, 1).code()).isEqualTo(ZkCode.NONODE);
        assertThat(tree.apply(new Create("/a", new byte[] {4}, CreateMode.PERSISTENT), 1, 10).path())
                .isEqualTo("/a");
        assertThat(tree.apply(SAMPLES.get(0), 2, 20).path()).isEqualTo("/a/b");
        assertThat(tree.apply(SAMPLES.get(2), 3, 30).stat().ephemeralOwner()).isEqualTo(0x42L);
        assertThat(tree.apply(SAMPLES.get(3), 3, 30).code()).isEqualTo(ZkCode.NOTEMPTY);
        assertThat(tree.apply(SAMPLES.get(5), 3, 30).code()).isEqualTo(ZkCode.BADVERSION);
        assertThat(tree.apply(SAMPLES.get(6), 4, 40).stat().mzxid()).isEqualTo(4);
        assertThat(tree.apply(SAMPLES.get(7), 0, 0).data()).containsExactly(4);
        assertThat(tree.apply(SAMPLES.get(8), 0, 0).code()).isEqualTo(ZkCode.BADARGUMENTS);
        assertThat(tree.apply(new GetChildren("/a"), 0, 0).children()).containsExactly("b");
    }

    @Property(tries = 500)
    void arbitraryBytesNeverThrow(@ForAll @Size(max = 40) byte[] bytes) {
        VoleryCommand.Decoded d = VoleryCommand.decode(bytes);
        assertThat(d.ok()).isEqualTo(d.error() == null);
        if (d.ok()) {
            assertThat(d.command().encode()).isEqualTo(bytes);
        }
    }

    @Property(tries = 300)
    void flippingAByteOfAValidCommandNeverThrows(@ForAll @Size(max = 10) byte[] data, @ForAll int position,
                                                 @ForAll byte value) {
        byte[] encoded = new SetData("/x/y", data, 1).encode();
        encoded[Math.floorMod(position, encoded.length)] = value;
        VoleryCommand.Decoded d = VoleryCommand.decode(encoded);
        assertThat(d.ok()).isEqualTo(d.error() == null);
    }

    private static byte[] frame(int opcode, String path) {
        byte[] p = path.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(1 + 4 + p.length).put((byte) opcode).putInt(p.length).put(p).array();
    }
}
