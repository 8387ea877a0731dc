package dev.parallax.scheduler.ssmr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.GroupSet;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SsmrCore}'s rule 13 (caching, seed 004 (S-SMR) §IV-C) end to end between two cores by hand:
 * partition 0 owns variable "x", partition 1 reads it; and bad cached values dropped and counted.
 */
class SsmrCacheCoreTest {
    private static final GroupSet BOTH = GroupSet.of(0, 1);
    private final SsmrCore owner = new SsmrCore(SsmrConfig.of(0, 2).withCache(SsmrCacheConfig.ON));
    private final SsmrCore reader = new SsmrCore(SsmrConfig.of(1, 2).withCache(SsmrCacheConfig.ON));

    private static Command cmd(long seq) {
        return Command.of(7, BOTH, seq, new byte[]{(byte) seq});
    }

    /** Both read x at 0: the owner's plan carries its value, the reader's lists the variable. */
    private static CachedExchange.Plan plan(int self, long x) {
        TreeMap<Integer, List<byte[]>> reads = new TreeMap<>();
        reads.put(0, List.of(new byte[]{'x'}));
        reads.put(1, List.of());
        List<ByteBuffer> own = self == 0 ? List.of(ByteBuffer.allocate(8).putLong(x).flip()) : List.of();
        return new CachedExchange.Plan(reads, own, List.of(), false);
    }

    private static List<PartitionMessage> sent(List<SsmrEffect> effects) {
        return effects.stream().filter(e -> e instanceof SsmrEffect.Send).map(e -> ((SsmrEffect.Send) e).message()).toList();
    }

    private static SsmrEffect.Execute execute(List<SsmrEffect> effects) {
        return effects.stream().filter(e -> e instanceof SsmrEffect.Execute).map(e -> (SsmrEffect.Execute) e)
                .findFirst().orElse(null);
    }

    /** Runs one command at both; returns the values the reader executed with from the owner. */
    private ByteBuffer exchange(long seq, long x) {
        Command c = cmd(seq);
        owner.delivered(c);
        reader.delivered(c);
        List<PartitionMessage> fromOwner = sent(owner.readsComputed(c.id(), null, null, plan(0, x)));
        List<SsmrEffect> r = reader.readsComputed(c.id(), null, GroupSet.of(0), plan(1, x));
        for (PartitionMessage m : sent(r)) {
            owner.received(m);
        }
        SsmrEffect.Execute ex = null;
        for (PartitionMessage m : fromOwner) {
            ex = execute(reader.received(m));
        }
        assertThat(ex).as("the reader executes once the owner's values are resolved").isNotNull();
        owner.executed(c.id(), CommandResult.ok(ByteBuffer.allocate(0)));
        reader.executed(c.id(), CommandResult.ok(ByteBuffer.allocate(0)));
        return ex.values().get(0);
    }

    @Test
    void theSecondReadIsAnsweredWithBottomAndResolvedFromTheCache() {
        assertThat(exchange(1, 42)).isEqualTo(CachedValuesFormat.encode(List.of(ByteBuffer.allocate(8).putLong(42).flip())));
        assertThat(exchange(2, 42)).as("logged and executed resolved, never ⊥")
                .isEqualTo(CachedValuesFormat.encode(List.of(ByteBuffer.allocate(8).putLong(42).flip())));
        assertThat(owner.cacheCounters().bottomsSent()).isEqualTo(1);
        assertThat(owner.cacheCounters().valuesSent()).isEqualTo(1);
        assertThat(reader.cacheCounters().heldEntries()).isEqualTo(1);
    }

    @Test
    void aBottomTheReaderCannotResolveIsDroppedAndEveryValueRequested() {
        exchange(1, 42);
        SsmrCore forgetful = new SsmrCore(SsmrConfig.of(1, 2).withCache(SsmrCacheConfig.ON)); // lost its cache
        Command c = cmd(2);
        owner.delivered(c);
        forgetful.delivered(c);
        List<PartitionMessage> fromOwner = sent(owner.readsComputed(c.id(), null, null, plan(0, 42)));
        forgetful.readsComputed(c.id(), null, GroupSet.of(0), plan(1, 42));
        List<SsmrEffect> r = forgetful.received(fromOwner.get(0));
        assertThat(execute(r)).isNull();
        assertThat(sent(r)).containsExactly(new PartitionMessage.FullRequest(c.id(), 1));
        assertThat(forgetful.cacheCounters().misses()).isEqualTo(1);
        List<PartitionMessage> full = sent(owner.received(new PartitionMessage.FullRequest(c.id(), 1)));
        assertThat(owner.cacheCounters().fullAnswered()).isEqualTo(1);
        SsmrEffect.Execute ex = execute(forgetful.received(full.get(0)));
        assertThat(ex).isNotNull();
        assertThat(ex.values().get(0)).isEqualTo(CachedValuesFormat.encode(List.of(ByteBuffer.allocate(8).putLong(42).flip())));
    }

    @Test
    void malformedOrMismatchedCachedValuesAreDroppedAndCounted() {
        Command c = cmd(1);
        reader.delivered(c);
        reader.readsComputed(c.id(), null, GroupSet.of(0), plan(1, 0));
        // bytes that are no count|(0 | 1 length bytes)*
        assertThat(reader.received(new PartitionMessage.CachedValues(c.id(), 0, ByteBuffer.wrap(new byte[]{0, 0, 0, 1, 7}))))
                .isEmpty();
        // plain values where the plan expects cached ones (ssmr.cache differs between partitions)
        assertThat(execute(reader.received(new PartitionMessage.Values(c.id(), 0, ByteBuffer.allocate(8))))).isNull();
        // two entries for a list of one
        List<SsmrEffect> r = reader.received(new PartitionMessage.CachedValues(c.id(), 0,
                CachedValuesFormat.encode(List.of(ByteBuffer.allocate(1), ByteBuffer.allocate(1)))));
        assertThat(execute(r)).isNull();
        assertThat(reader.cacheCounters().malformed()).isEqualTo(2);
        assertThat(reader.cacheCounters().misses()).isEqualTo(1);
        // the right message still gets through
        assertThat(execute(reader.received(new PartitionMessage.CachedValues(c.id(), 0,
                CachedValuesFormat.encode(List.of(ByteBuffer.allocate(8))))))).isNotNull();
    }

    @Test
    void anOwnerWhoseReadsFailSendsTheFailedMarkerAndTheReaderExecutesWithNothing() {
        Command c = cmd(1);
        owner.delivered(c);
        reader.delivered(c);
        List<PartitionMessage> m = sent(owner.readsFailed(c.id(), CommandResult.error("bad"), plan(0, 1)));
        assertThat(m).hasSize(1);
        reader.readsComputed(c.id(), null, GroupSet.of(0), plan(1, 1));
        SsmrEffect.Execute ex = execute(reader.received(m.get(0)));
        assertThat(CachedValuesFormat.decode(ex.values().get(0)).failed()).isTrue();
        assertThat(reader.cacheCounters().heldEntries()).isZero();
    }

    @Test
    void theCodecCarriesTheNewMessagesAndDropsMalformedCachedValues() {
        PartitionMessageCodec codec = new PartitionMessageCodec(256);
        Command c = cmd(1);
        for (PartitionMessage m : List.of(new PartitionMessage.FullRequest(c.id(), 1),
                new PartitionMessage.CachedValues(c.id(), 0, CachedValuesFormat.failed()),
                new PartitionMessage.CachedValues(c.id(), 0, CachedValuesFormat.encode(java.util.Arrays.asList(
                        ByteBuffer.wrap(new byte[]{1, 2}), null))))) {
            assertThat(codec.decode(codec.encode(m))).isEqualTo(new PartitionMessageCodec.Decoded.Ok(m));
        }
        for (byte[] bad : List.of(new byte[]{0, 0, 0, 2, 0}, new byte[]{0, 0, 0, 1, 1, 0, 0, 0, 5, 1},
                new byte[]{(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFE}, new byte[]{0, 0, 0, 1, 2},
                new byte[]{0, 0, 0, 0, 9}, new byte[]{0, 0})) {
            ByteBuffer e = codec.encode(new PartitionMessage.Values(c.id(), 0, ByteBuffer.wrap(bad)));
            e.put(1, (byte) 5); // the same bytes as cached values
            assertThat(codec.decode(e)).as(java.util.Arrays.toString(bad))
                    .isInstanceOf(PartitionMessageCodec.Decoded.Malformed.class);
        }
        assertThat(codec.malformed()).isEqualTo(6);
    }
}
