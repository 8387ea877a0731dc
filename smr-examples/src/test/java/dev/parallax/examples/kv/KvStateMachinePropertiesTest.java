package dev.parallax.examples.kv;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parallax.core.SnapshotCapture;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Random command sequences over a small key space, so that commands collide on keys. 250 tries
 * each: a sequence of 60 commands already covers many interleavings per try.
 */
class KvStateMachinePropertiesTest {

    @Property(tries = 250)
    void twoInstancesFedTheSameCommandsAgree(@ForAll("sequences") List<KvCommand> commands) {
        KvStateMachine a = new KvStateMachine();
        KvStateMachine b = new KvStateMachine();
        for (KvCommand command : commands) {
            assertThat(outcome(b, command)).isEqualTo(outcome(a, command));
        }
        assertThat(KvTesting.snapshot(b)).isEqualTo(KvTesting.snapshot(a));
    }

    @Property(tries = 250)
    void restoringASnapshotMidwayGivesTheSameEnd(@ForAll("sequences") List<KvCommand> commands,
                                                 @ForAll @IntRange(max = 60) int cut) throws IOException {
        int at = Math.min(cut, commands.size());
        KvStateMachine original = new KvStateMachine();
        commands.subList(0, at).forEach(c -> outcome(original, c));
        KvStateMachine restored = new KvStateMachine();
        restored.execute(KvCommand.of(KvOp.SET, KvTesting.b("stale"), KvTesting.b("x")).encode());
        KvTesting.restore(restored, KvTesting.snapshot(original));
        for (KvCommand command : commands.subList(at, commands.size())) {
            assertThat(outcome(restored, command)).isEqualTo(outcome(original, command));
        }
        assertThat(KvTesting.snapshot(restored)).isEqualTo(KvTesting.snapshot(original));
    }

    @Property(tries = 250)
    void behavesLikeAPlainMap(@ForAll("sequences") List<KvCommand> commands) {
        KvStateMachine sm = new KvStateMachine();
        Map<String, String> model = new HashMap<>();
        for (KvCommand command : commands) {
            assertThat(outcome(sm, command)).isEqualTo(expected(model, command));
        }
    }

    /**
     * Copy-on-write captures taken at random points and written (then closed) a random number of
     * commands later, sometimes after the next capture, write exactly the snapshot of their point;
     * meanwhile and afterwards the store answers like one that never captured.
     */
    @Property(tries = 250)
    void capturesWriteTheStateOfTheirPointAndChangeNoAnswer(@ForAll("sequences") List<KvCommand> commands,
                                                           @ForAll Random random) throws IOException {
        KvStateMachine sm = new KvStateMachine();
        KvStateMachine reference = new KvStateMachine();
        Deque<SnapshotCapture> open = new ArrayDeque<>();
        Deque<byte[]> expected = new ArrayDeque<>();
        for (KvCommand command : commands) {
            if (open.size() < 2 && random.nextInt(4) == 0) {
                open.add(sm.capture());
                expected.add(KvTesting.snapshot(reference));
            }
            if (!open.isEmpty() && random.nextInt(3) == 0) {
                assertThat(written(open.remove())).isEqualTo(expected.remove());
            }
            assertThat(outcome(sm, command)).isEqualTo(outcome(reference, command));
            assertThat(sm.digest()).isEqualTo(reference.digest());
            assertThat(sm.size()).isEqualTo(reference.size());
        }
        while (!open.isEmpty()) {
            assertThat(written(open.remove())).isEqualTo(expected.remove());
        }
        outcome(sm, KvCommand.of(KvOp.SET, KvTesting.b("after"), KvTesting.b("all")));
        outcome(reference, KvCommand.of(KvOp.SET, KvTesting.b("after"), KvTesting.b("all")));
        assertThat(KvTesting.snapshot(sm)).isEqualTo(KvTesting.snapshot(reference));
    }

    /** Writes a capture, then closes it, as the replica's snapshot writer does. */
    private static byte[] written(SnapshotCapture capture) throws IOException {
        try (capture) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            capture.writeTo(Channels.newChannel(out));
            return out.toByteArray();
        }
    }

    /** The reply, or the rejection's type and message. */
    private static Object outcome(KvStateMachine sm, KvCommand command) {
        try {
            return KvReply.decode(sm.execute(command.encode()));
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    private static Object expected(Map<String, String> model, KvCommand c) {
        List<String> a = new ArrayList<>();
        for (int i = 0; i < c.argCount(); i++) {
            a.add(new String(c.arg(i), StandardCharsets.ISO_8859_1));
        }
        switch (c.op()) {
            case GET:
                return bulkOrNil(model.get(a.get(0)));
            case SET:
                model.put(a.get(0), a.get(1));
                return KvReply.OK;
            case SET_IF_ABSENT:
                return model.putIfAbsent(a.get(0), a.get(1)) == null ? KvReply.OK : KvReply.NIL;
            case SET_IF_PRESENT:
                return model.replace(a.get(0), a.get(1)) != null ? KvReply.OK : KvReply.NIL;
            case DEL:
                return new KvReply.Int(a.stream().filter(k -> model.remove(k) != null).count());
            case EXISTS:
                return new KvReply.Int(a.stream().filter(model::containsKey).count());
            case INCR: {
                long v;
                try {
                    String old = model.getOrDefault(a.get(0), "0");
                    v = Long.parseLong(old);
                    if (!Long.toString(v).equals(old)) {
                        throw new NumberFormatException(old);
                    }
                } catch (NumberFormatException e) {
                    return "KvCommandException: ERR value is not an integer or out of range";
                }
                if (v == Long.MAX_VALUE) {
                    return "KvCommandException: ERR increment or decrement would overflow";
                }
                model.put(a.get(0), Long.toString(v + 1));
                return new KvReply.Int(v + 1);
            }
            case MGET: {
                List<KvReply> values = new ArrayList<>();
                a.forEach(k -> values.add(bulkOrNil(model.get(k))));
                return new KvReply.Multi(values);
            }
            case MSET:
                for (int i = 0; i < a.size(); i += 2) {
                    model.put(a.get(i), a.get(i + 1));
                }
                return KvReply.OK;
            case DBSIZE:
                return new KvReply.Int(model.size());
            case STRLEN:
                return new KvReply.Int(model.getOrDefault(a.get(0), "").length());
            case FLUSHALL:
                model.clear();
                return KvReply.OK;
            default:
                throw new AssertionError(c.op());
        }
    }

    private static KvReply bulkOrNil(String value) {
        return value == null ? KvReply.NIL : new KvReply.Bulk(value.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Provide
    Arbitrary<List<KvCommand>> sequences() {
        Arbitrary<byte[]> key = Arbitraries.of("a", "b", "c", "\u0000", "\u00ff\r\n")
                .map(s -> s.getBytes(StandardCharsets.ISO_8859_1));
        Arbitrary<byte[]> value = Arbitraries.oneOf(
                Arbitraries.of("0", "1", "-1", "41", "x", "", "9223372036854775807", "-9223372036854775808", "007"),
                Arbitraries.strings().ofMaxLength(4))
                .map(s -> s.getBytes(StandardCharsets.ISO_8859_1));
        Arbitrary<KvCommand> command = Arbitraries.of(KvOp.class).flatMap(op -> {
            switch (op) {
                case GET:
                case INCR:
                case STRLEN:
                    return key.map(k -> KvCommand.of(op, k));
                case SET:
                case SET_IF_ABSENT:
                case SET_IF_PRESENT:
                    return key.flatMap(k -> value.map(v -> KvCommand.of(op, k, v)));
                case MSET:
                    return Arbitraries.oneOf(key, value).list().ofMinSize(1).ofMaxSize(3)
                            .flatMap(ks -> value.list().ofSize(ks.size()).map(vs -> {
                                byte[][] args = new byte[2 * ks.size()][];
                                for (int i = 0; i < ks.size(); i++) {
                                    args[2 * i] = ks.get(i);
                                    args[2 * i + 1] = vs.get(i);
                                }
                                return KvCommand.of(op, args);
                            }));
                case DBSIZE:
                case FLUSHALL:
                    return Arbitraries.just(KvCommand.of(op));
                default:
                    return key.list().ofMinSize(1).ofMaxSize(4).map(ks -> KvCommand.of(op, ks.toArray(new byte[0][])));
            }
        });
        return command.list().ofMaxSize(60);
    }

}
