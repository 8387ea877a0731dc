package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * A minimal {@link Engine} for testing a {@link Variant} alone: the acceptor rule C4 (vote iff
 * {@code round ≥ rnd}, idempotent for the same id, refused for another id in the same round; the
 * vote persisted with sync), a learner that records what it learns, and a value cache without
 * bounds unless {@link #bufferLimit} is set. Not thread-safe; one test drives it.
 */
final class EngineDouble implements Engine {
    record Learned(long instance, ValueId vid, ByteBuffer value) {
    }

    private final RingConfig config;
    private final int self;
    long rnd = -1;
    Ring ring;
    boolean leading;
    boolean recovering;
    int bufferLimit = Integer.MAX_VALUE;
    final Map<Long, Map<Long, ValueId>> votes = new HashMap<>();
    final Map<ValueId, ByteBuffer> values = new HashMap<>();
    final TreeMap<Long, ValueId> decided = new TreeMap<>();
    final List<Learned> learned = new ArrayList<>();
    final List<ProposalEntry> proposals = new ArrayList<>();
    final List<Long> seen = new ArrayList<>();
    int refusedValues;
    int openMoreCalls;
    /** What {@link #openMore} does (a test may open instances there, as the real engine does). */
    Consumer<Effects<RingWire, RingRecord, RingValue>> onOpenMore = out -> { };

    EngineDouble(RingConfig config, int self) {
        this.config = config;
        this.self = self;
    }

    @Override
    public RingConfig config() {
        return config;
    }

    @Override
    public int self() {
        return self;
    }

    @Override
    public long rnd() {
        return rnd;
    }

    @Override
    public Ring ring() {
        return ring;
    }

    @Override
    public boolean leading() {
        return leading;
    }

    @Override
    public boolean vote(long instance, long round, Ring ring, ValueId vid, ByteBuffer value,
                        Effects<RingWire, RingRecord, RingValue> out) {
        if (recovering || round < rnd) {
            return false;
        }
        Map<Long, ValueId> byRound = votes.computeIfAbsent(instance, i -> new HashMap<>());
        ValueId had = byRound.get(round);
        if (had != null) {
            return had.equals(vid);
        }
        rnd = round;
        byRound.put(round, vid);
        values.put(vid, value);
        out.persist(new RingRecord.VoteRecord(instance, round, vid, value), true);
        return true;
    }

    @Override
    public ValueId votedVid(long instance, long round) {
        Map<Long, ValueId> byRound = votes.get(instance);
        return byRound == null ? null : byRound.get(round);
    }

    @Override
    public void learn(long instance, ValueId vid, ByteBuffer valueOrNull, Effects<RingWire, RingRecord, RingValue> out) {
        if (decided.containsKey(instance)) {
            return;
        }
        decided.put(instance, vid);
        learned.add(new Learned(instance, vid, valueOrNull));
    }

    @Override
    public ByteBuffer valueOf(ValueId vid) {
        return values.get(vid);
    }

    @Override
    public boolean rememberValue(ValueId vid, ByteBuffer value) {
        if (!values.containsKey(vid) && values.size() >= bufferLimit) {
            refusedValues++;
            return false;
        }
        values.put(vid, value);
        return true;
    }

    @Override
    public void proposalArrived(ProposalEntry proposal, Effects<RingWire, RingRecord, RingValue> out) {
        proposals.add(proposal);
    }

    @Override
    public boolean isDecided(long instance) {
        return decided.containsKey(instance);
    }

    @Override
    public long firstUndecided() {
        long i = 0;
        while (decided.containsKey(i)) {
            i++;
        }
        return i;
    }

    @Override
    public void sawInstance(long instance) {
        seen.add(instance);
    }

    @Override
    public void openMore(Effects<RingWire, RingRecord, RingValue> out) {
        openMoreCalls++;
        onOpenMore.accept(out);
    }
}
