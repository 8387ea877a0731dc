package dev.parallax.core.protocol;

import java.util.ArrayList;
import java.util.List;

/**
 * An {@link Effects} that collects one step's effects in order so the driver can apply them by the
 * driver contract (persist, sync, then send and decide). Reused across steps with {@link #clear()}.
 *
 * <p>Not thread-safe: one driver thread owns it.
 */
public final class EffectBuffer<M, R, V> implements Effects<M, R, V> {

    /** A message to send. */
    public record Outgoing<M>(int to, M message) {
    }

    /** A datagram for every other member of datagram group {@code group}. */
    public record GroupSend<M>(int group, M message) {
    }

    /** A decided value. */
    public record Decision<V>(long instance, V value) {
    }

    /** A tentative position ({@link Effects#tentative}), or with {@code revoked} a revocation from {@code instance} on. */
    public record Tentative<V>(long instance, V value, boolean revoked) {
    }

    /** A request for a snapshot from {@code peer} covering instances below {@code instance}. */
    public record SnapshotRequest(int peer, long instance) {
    }

    /** A read's answer: ready at {@code position}, or failed ({@code position} -1) with a leader hint. */
    public record ReadAnswer(long read, long position, int leaderHint) {
        /** Whether the read may run (at {@link #position}). */
        public boolean ready() {
            return position >= 0;
        }
    }

    private final List<SnapshotRequest> snapshotRequests = new ArrayList<>();
    private final List<ReadAnswer> reads = new ArrayList<>();
    private final List<SafetyViolation> violations = new ArrayList<>();
    private final List<Outgoing<M>> sends = new ArrayList<>();
    private final List<GroupSend<M>> datagrams = new ArrayList<>();
    private final List<R> records = new ArrayList<>();
    private final List<Decision<V>> decisions = new ArrayList<>();
    private final List<Tentative<V>> tentatives = new ArrayList<>();
    private boolean syncRequested;
    private long wakeAt = Long.MAX_VALUE;

    @Override
    public void send(int to, M message) {
        sends.add(new Outgoing<>(to, message));
    }

    @Override
    public void sendDatagram(int group, M message) {
        datagrams.add(new GroupSend<>(group, message));
    }

    @Override
    public void persist(R record, boolean sync) {
        records.add(record);
        syncRequested |= sync;
    }

    @Override
    public void decide(long instance, V value) {
        decisions.add(new Decision<>(instance, value));
    }

    @Override
    public void tentative(long instance, V value) {
        tentatives.add(new Tentative<>(instance, value, false));
    }

    @Override
    public void tentativesRevoked(long from) {
        tentatives.add(new Tentative<>(from, null, true));
    }

    /** Tentative positions and revocations, in the order emitted. */
    public List<Tentative<V>> tentatives() {
        return tentatives;
    }

    @Override
    public void wakeAt(long nanos) {
        wakeAt = Math.min(wakeAt, nanos);
    }

    @Override
    public void snapshotNeeded(int peer, long instance) {
        snapshotRequests.add(new SnapshotRequest(peer, instance));
    }

    @Override
    public void readReady(long read, long position) {
        if (position < 0) {
            throw new IllegalArgumentException("read position " + position);
        }
        reads.add(new ReadAnswer(read, position, -1));
    }

    @Override
    public void readFailed(long read, int leaderHint) {
        reads.add(new ReadAnswer(read, -1, leaderHint));
    }

    /** Read answers, in order. */
    public List<ReadAnswer> reads() {
        return reads;
    }

    @Override
    public void safetyViolation(SafetyViolation violation) {
        violations.add(java.util.Objects.requireNonNull(violation, "violation"));
    }

    /** Safety violations the core reported in this step, in order (empty in every correct run). */
    public List<SafetyViolation> safetyViolations() {
        return violations;
    }

    /** Snapshot requests, in order. */
    public List<SnapshotRequest> snapshotRequests() {
        return snapshotRequests;
    }

    /** Messages in the order they were emitted; the list is owned by this buffer. */
    public List<Outgoing<M>> sends() {
        return sends;
    }

    /** Datagrams in the order they were emitted; the list is owned by this buffer. */
    public List<GroupSend<M>> datagrams() {
        return datagrams;
    }

    /** Records to persist, in order. */
    public List<R> records() {
        return records;
    }

    /** Whether any record of this step must be durable before sends go out. */
    public boolean syncRequested() {
        return syncRequested;
    }

    /** Decisions in the order they were emitted. */
    public List<Decision<V>> decisions() {
        return decisions;
    }

    /** Earliest requested wake-up, or {@link Long#MAX_VALUE} if none. */
    public long wakeAt() {
        return wakeAt;
    }

    /** Whether this step produced no effect at all (no wake-up request either). */
    public boolean isEmpty() {
        return sends.isEmpty() && datagrams.isEmpty() && records.isEmpty() && decisions.isEmpty() && tentatives.isEmpty()
                && snapshotRequests.isEmpty()
                && violations.isEmpty() && reads.isEmpty() && wakeAt == Long.MAX_VALUE;
    }

    /** Forgets every collected effect. */
    public void clear() {
        sends.clear();
        datagrams.clear();
        records.clear();
        decisions.clear();
        tentatives.clear();
        snapshotRequests.clear();
        violations.clear();
        reads.clear();
        syncRequested = false;
        wakeAt = Long.MAX_VALUE;
    }
}
