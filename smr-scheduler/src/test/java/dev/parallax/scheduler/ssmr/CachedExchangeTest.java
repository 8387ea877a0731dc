package dev.parallax.scheduler.ssmr;

import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link CachedExchange}'s rules one by one (seed 004 (S-SMR) §IV-C, conservative caching), an owner
 * (partition 0) and a reader (partition 1) by hand, each with its own {@link ReadCache}.
 */
class CachedExchangeTest {
    private static final SsmrCacheConfig ON = SsmrCacheConfig.ON;
    private final ReadCache owner = new ReadCache();
    private final ReadCache reader = new ReadCache();
    private long seq;

    private static byte[] key(String k) {
        return k.getBytes(StandardCharsets.UTF_8);
    }

    private static ByteBuffer val(String v) {
        return ByteBuffer.wrap(v.getBytes(StandardCharsets.UTF_8));
    }

    private static CachedExchange.Plan reads(List<byte[]> keys, List<ByteBuffer> values) {
        TreeMap<Integer, List<byte[]>> r = new TreeMap<>();
        r.put(0, keys);
        return new CachedExchange.Plan(r, values, List.of(), false);
    }

    /** The owner sends {@code keys} with {@code values} to the reader; returns the entries (null = ⊥). */
    private List<ByteBuffer> send(SsmrCacheConfig config, List<byte[]> keys, List<ByteBuffer> values) {
        CommandId id = new CommandId(1, GroupSet.of(0, 1), ++seq);
        CachedExchange.Outgoing o = CachedExchange.send(id, 0, 1L << 1, reads(keys, values), owner, config, 1 << 20);
        PartitionMessage.CachedValues m = (PartitionMessage.CachedValues) o.perReader().get(1);
        return CachedValuesFormat.decode(m.values()).entries();
    }

    /** The reader resolves and applies the message; returns the resolved values (null if unresolvable). */
    private List<ByteBuffer> receive(SsmrCacheConfig config, List<byte[]> keys, List<ByteBuffer> entries) {
        ByteBuffer r = CachedExchange.resolve(CachedValuesFormat.encode(entries), keys, reader.held(0));
        if (r == null) {
            return null;
        }
        CachedExchange.apply(r, keys, reader.held(0), config);
        return CachedValuesFormat.decode(r).entries();
    }

    private void write(byte[]... keys) {
        CachedExchange.noteWrites(new CachedExchange.Plan(new TreeMap<>(), List.of(), List.of(keys), false), owner);
    }

    @Test
    void rule3TheFirstSendCarriesTheValueTheNextSaysCurrent() {
        List<byte[]> x = List.of(key("x"));
        assertThat(send(ON, x, List.of(val("1")))).containsExactly(val("1"));
        assertThat(receive(ON, x, List.of(val("1")))).containsExactly(val("1"));
        List<ByteBuffer> second = send(ON, x, List.of(val("1")));
        assertThat(second).containsExactly((ByteBuffer) null);
        assertThat(receive(ON, x, second)).as("⊥ resolved from the cache").containsExactly(val("1"));
    }

    @Test
    void rule3AWriteMakesTheNextSendCarryTheValue() {
        List<byte[]> x = List.of(key("x"));
        receive(ON, x, send(ON, x, List.of(val("1"))));
        write(key("x"));
        assertThat(send(ON, x, List.of(val("2")))).as("stale in the mirror").containsExactly(val("2"));
        write(key("y")); // another variable: x stays current
        assertThat(send(ON, x, List.of(val("2")))).containsExactly((ByteBuffer) null);
        CachedExchange.noteWrites(new CachedExchange.Plan(new TreeMap<>(), List.of(), null, true), owner);
        assertThat(send(ON, x, List.of(val("3")))).as("a write of every variable (FLUSHALL)").containsExactly(val("3"));
    }

    @Test
    void rule4ARepeatedVariableIsSentOnceAndResolvedFromTheSameMessage() {
        List<byte[]> xx = List.of(key("x"), key("x"));
        List<ByteBuffer> entries = send(ON, xx, List.of(val("1"), val("1")));
        assertThat(entries).containsExactly(val("1"), null);
        assertThat(receive(ON, xx, entries)).containsExactly(val("1"), val("1"));
    }

    @Test
    void rule5AReaderThatLostItsCopyCannotResolveAndChangesNothing() {
        List<byte[]> x = List.of(key("x"));
        receive(ON, x, send(ON, x, List.of(val("1"))));
        reader.held.clear();
        List<ByteBuffer> entries = send(ON, x, List.of(val("1")));
        assertThat(entries).containsExactly((ByteBuffer) null);
        assertThat(receive(ON, x, entries)).as("unresolvable: the reader asks for every value").isNull();
        assertThat(reader.heldEntries()).isZero();
        CachedExchange.forget(x, reader.held(0));
        assertThat(CachedExchange.resolve(CachedValuesFormat.encode(List.of(val("1"), val("2"))), x, reader.held(0)))
                .as("a message that does not match the list").isNull();
    }

    @Test
    void rule4TheMirrorFollowsTheCacheThroughEvictionsByEntriesAndBytes() {
        // Random sends of random variables of random sizes, with writes, under small bounds: every
        // ⊥ the owner sends resolves at the reader to the owner's current value, and the two maps
        // hold the same variables in the same order.
        SsmrCacheConfig small = ON.withBounds(4, 40);
        SplittableRandom rnd = new SplittableRandom(11);
        String[] current = new String[10];
        for (int i = 0; i < current.length; i++) {
            current[i] = "v" + i;
        }
        for (int round = 0; round < 2_000; round++) {
            if (rnd.nextInt(4) == 0) {
                int w = rnd.nextInt(current.length);
                current[w] = "w" + round + "-".repeat(rnd.nextInt(12));
                write(key("k" + w));
                continue;
            }
            List<byte[]> keys = new ArrayList<>();
            List<ByteBuffer> values = new ArrayList<>();
            for (int n = 1 + rnd.nextInt(3); n > 0; n--) {
                int k = rnd.nextInt(current.length);
                keys.add(key("k" + k));
                values.add(val(current[k]));
            }
            List<ByteBuffer> resolved = receive(small, keys, send(small, keys, values));
            assertThat(resolved).as("round %d", round).isEqualTo(values);
            assertThat(reader.held(0).map.keySet()).as("round %d", round)
                    .containsExactlyElementsOf(owner.mirror(1).map.keySet());
        }
    }

    @Test
    void theMutationAlwaysSaysCurrentAndAReaderWithAnOldCopyReadsIt() {
        SsmrCacheConfig mutated = ON.withUnsafeAlwaysCurrent(true);
        List<byte[]> x = List.of(key("x"));
        receive(mutated, x, List.of(val("1")));
        write(key("x"));
        List<ByteBuffer> entries = send(mutated, x, List.of(val("2")));
        assertThat(entries).containsExactly((ByteBuffer) null);
        assertThat(receive(mutated, x, entries)).as("stale: what the simulation's checker must catch")
                .containsExactly(val("1"));
    }

    @Test
    void rule6AnOwnerThatCannotReadSendsTheFailedMarkerAndTouchesNoMirror() {
        CommandId id = new CommandId(1, GroupSet.of(0, 1), 1);
        CachedExchange.Outgoing o = CachedExchange.send(id, 0, 1L << 1, reads(List.of(key("x")), null), owner, ON, 1 << 20);
        assertThat(CachedValuesFormat.decode(o.full().values()).failed()).isTrue();
        assertThat(owner.hasMirrors()).isFalse();
        assertThat(CachedExchange.send(id, 0, 1L << 1, reads(List.of(key("x")), List.of(ByteBuffer.allocate(100))),
                owner, ON, 50)).as("too large for a message").isNull();
        assertThat(owner.hasMirrors()).isFalse();
    }

    @Test
    void rule7TheCachingStateSurvivesASnapshot() throws Exception {
        List<byte[]> x = List.of(key("x"), key("y"));
        receive(ON, x, send(ON, x, List.of(val("1"), val("2"))));
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        reader.write(new java.io.DataOutputStream(b));
        owner.write(new java.io.DataOutputStream(b));
        java.io.DataInputStream in = new java.io.DataInputStream(new java.io.ByteArrayInputStream(b.toByteArray()));
        ReadCache r = new ReadCache();
        ReadCache o = new ReadCache();
        r.read(in);
        o.read(in);
        assertThat(r.held(0).map.keySet()).containsExactlyElementsOf(reader.held(0).map.keySet());
        assertThat(o.mirror(1).map.keySet()).containsExactlyElementsOf(owner.mirror(1).map.keySet());
        assertThat(o.mirror(1).get(new ReadCache.Key(key("y"))).current).isTrue();
        assertThat(r.held(0).bytes).isEqualTo(reader.held(0).bytes);
    }
}
