package dev.parallax.examples.volery;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wire format pinned: for every command type (with and without its optional time or watcher),
 * the exact bytes {@link VoleryCodec} writes, and that those bytes decode back to the command. The
 * bytes were taken from the encoding before the commands became records of their own, so a change
 * here is a change of the format replicas exchange and store in their logs.
 */
class VoleryCodecTest {
    private static final Watcher W = new Watcher(7, 9);

    private static Map<VoleryCommand, String> pinned() {
        Map<VoleryCommand, String> m = new LinkedHashMap<>();
        m.put(new Create("/a/b", new byte[] {1, 2, 3}, CreateMode.PERSISTENT),
                "01" + "00000004" + "2f612f62" + "00000000" + "00000003" + "010203");
        m.put(new Create("/e", new byte[] {9}, CreateMode.CONTAINER, 1_700_000_000_123L),
                "01" + "00000002" + "2f65" + "00000004" + "00000001" + "09" + "0000018bcfe5687b");
        m.put(new Create("/e", new byte[] {9}, CreateMode.EPHEMERAL, 1_700_000_000_123L, 0x42L, 4000),
                "01" + "00000002" + "2f65" + "00000001" + "00000001" + "09" + "0000000000000042" + "00000fa0"
                        + "0000018bcfe5687b");
        m.put(new Check("/c", 3), "0d" + "00000002" + "2f63" + "00000003");
        m.put(new Multi(List.of(new Check("/c", -1), new Delete("/a", 2)), 1_700_000_000_123L),
                "0e" + "00000000" + "00000002" + "0000000b" + "0d" + "00000002" + "2f63" + "ffffffff"
                        + "0000000b" + "02" + "00000002" + "2f61" + "00000002" + "0000018bcfe5687b");
        m.put(new SessionTick(new long[] {1, -2}), "68" + "00000000" + "00000002" + "0000000000000001"
                + "fffffffffffffffe");
        m.put(new CloseSession(0x42L, 5L), "69" + "00000000" + "0000000000000042" + "0000000000000005");
        m.put(new Create("/q/", new byte[0], CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL),
                "01" + "00000003" + "2f712f" + "00000006" + "00000000");
        m.put(new Delete("/ü", 7), "02" + "00000003" + "2fc3bc" + "00000007");
        m.put(new Delete("/a", -1), "02" + "00000002" + "2f61" + "ffffffff");
        m.put(new Exists("not/valid/"), "03" + "0000000a" + "6e6f742f76616c69642f");
        m.put(new Exists("/x", new Watcher(255, Long.MAX_VALUE)),
                "03" + "00000002" + "2f78" + "000000ff" + "7fffffffffffffff");
        m.put(new GetData("/a"), "04" + "00000002" + "2f61");
        m.put(new GetData("/a", new Watcher(3, -5)), "04" + "00000002" + "2f61" + "00000003" + "fffffffffffffffb");
        m.put(new SetData("/", new byte[0], -1), "05" + "00000001" + "2f" + "ffffffff" + "00000000");
        m.put(new SetData("/a", new byte[] {2}, 4, 1_700_000_000_123L),
                "05" + "00000002" + "2f61" + "00000004" + "00000001" + "02" + "0000018bcfe5687b");
        m.put(new GetChildren(""), "08" + "00000000");
        m.put(new GetChildren("/p", new Watcher(0, 1)), "08" + "00000002" + "2f70" + "00000000" + "0000000000000001");
        m.put(new WatchPoll(1, 2, 3), "64" + "00000000" + "00000001" + "00000002" + "0000000000000003");
        m.put(new WatchDrop(0, 3, WatchDrop.ALL_SESSIONS),
                "65" + "00000000" + "00000000" + "00000003" + "8000000000000000");
        m.put(new WatchDrop(2, 1, 42), "65" + "00000000" + "00000002" + "00000001" + "000000000000002a");
        m.put(new AddWatch("/r", true, W), "66" + "00000002" + "2f72" + "01" + "00000007" + "0000000000000009");
        m.put(new AddWatch("/p", false, new Watcher(7, -9)),
                "66" + "00000002" + "2f70" + "00" + "00000007" + "fffffffffffffff7");
        m.put(new RemoveWatches("/p/q", 1, new Watcher(5, 6)),
                "67" + "00000004" + "2f702f71" + "00000001" + "00000005" + "0000000000000006");
        return m;
    }

    @Test
    void everyCommandTypeEncodesToItsPinnedBytesAndDecodesBack() {
        pinned().forEach((command, hex) -> {
            byte[] bytes = HexFormat.of().parseHex(hex);
            assertThat(command.encode()).as("%s", command).isEqualTo(bytes);
            assertThat(VoleryCodec.encode(command)).as("%s", command).isEqualTo(bytes);
            VoleryCommand.Decoded decoded = VoleryCodec.decode(bytes);
            assertThat(decoded.error()).as("%s", command).isNull();
            assertThat(decoded.command()).as("%s", command).isEqualTo(command).hasSameHashCodeAs(command);
        });
    }

    @Test
    void thePinnedSamplesCoverEveryCommandType() {
        Set<Class<?>> types = new HashSet<>();
        java.util.ArrayDeque<Class<?>> open = new java.util.ArrayDeque<>(List.of(VoleryCommand.class.getPermittedSubclasses()));
        while (!open.isEmpty()) {
            Class<?> c = open.poll();
            if (c.isInterface()) {
                open.addAll(List.of(c.getPermittedSubclasses()));
            } else {
                types.add(c);
            }
        }
        assertThat(types).hasSize(14);
        assertThat(pinned().keySet()).extracting(Object::getClass).containsAll(types);
    }
}
