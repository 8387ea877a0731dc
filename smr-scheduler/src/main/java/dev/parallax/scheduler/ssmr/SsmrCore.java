package dev.parallax.scheduler.ssmr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * S-SMR's execution at ONE replica of partition {@code p} as a pure, deterministic step function
 * (seed 004 (S-SMR) §IV Alg. 1 with the §IV-C optimizations): no threads, I/O, clock or randomness;
 * each input returns the {@link SsmrEffect}s to perform, in order; time enters only through
 * {@link #tick}.
 *
 * <h2>Rules</h2>
 * <ol>
 *   <li><b>Delivery</b> ({@link #delivered}): a command whose destinations do not contain {@code p}
 *       is skipped (counted). Otherwise it is queued in delivery order. Its signal (Alg. 1 l.11)
 *       goes out when it STARTS executing, as the {@link PartitionMessage.Values} of rule 3 (values
 *       count as a signal): execution atomicity (§IV-A) is about overlapping executions, and Alg. 1's
 *       handler runs one command at a time. Eyrie's "as soon as each command C is delivered" (§V-A)
 *       is NOT linearizable over a partial-order multicast such as Multi-Ring
 *       ({@link SsmrConfig#earlySignals}, off by default, exists only to show it).</li>
 *   <li><b>One at a time</b>: only the head command runs; the next one does not start before the
 *       head finishes (Alg. 1 l.20 blocks the partition: this is what Fig. 1 (b) needs).</li>
 *   <li><b>Reads</b>: the head's reads are computed ({@link SsmrEffect.ComputeReads}); its local
 *       values go to every other involved partition as {@link PartitionMessage.Values} (even empty:
 *       a partition naming us in remoteReads waits for them; §IV-C first optimization). The head
 *       executes once it holds the values of every involved partition remoteReads named (Alg. 1
 *       l.16-17).</li>
 *   <li><b>Execution atomicity</b>: an executed head finishes only once it holds a signal or
 *       values (values count as a signal, §IV-C second optimization) from EVERY other involved
 *       partition (Alg. 1 l.20). Finishing = {@link SsmrEffect.LogValues} then
 *       {@link SsmrEffect.Reply}, then the next command starts.</li>
 *   <li><b>Early messages</b> (for commands not yet delivered here) are buffered per command,
 *       bounded by {@link SsmrConfig#maxEarlyCommands} and {@link SsmrConfig#maxEarlyBytes}; beyond
 *       the bounds new early messages are refused (counted), entries older than
 *       {@link SsmrConfig#earlyTtlNanos} are dropped (counted). Retransmission recovers both.</li>
 *   <li><b>Late messages</b>, for commands already finished here, are dropped (counted). A
 *       command is recognised as finished by the highest finished sequence of its client stream
 *       (CommandId's sequence grows per (client, destination) stream), kept for the
 *       {@link SsmrConfig#finishedStreams} most recent streams of several partitions (rule 12). A stream
 *       that finished a higher sequence before a lower one was delivered (a pipelining client)
 *       makes an early message for the lower one look late: it is dropped and recovered by
 *       retransmission (safety is not affected, only latency).</li>
 *   <li><b>Duplicates</b> (the same partition's signal or values again, from another replica or
 *       resent) are ignored (counted). Messages from this partition, or about a command that does
 *       not involve this partition or the sender, are dropped as foreign (counted).</li>
 *   <li><b>Retransmission</b> (§V-A "one of the operational replicas will retransmit"): a head
 *       waiting longer than {@link SsmrConfig#resendAfterNanos} sends a
 *       {@link PartitionMessage.Request} to each partition it still misses, and again after each further
 *       interval. A request is answered with the values of a command this replica has started, from
 *       the pending commands or from a cache of the last {@link SsmrConfig#resendCache} finished
 *       ones of several partitions (rule 12; a {@link PartitionMessage.Signal} if evicted); a
 *       request for a command not yet started is ignored: the values go out when it starts. An
 *       answer from the cache also carries the cached messages of the next finished commands
 *       involving the asker (catch-up push-ahead, bounded; the paper is silent).</li>
 *   <li><b>Replay</b>: a command delivered with logged values ({@link RemoteValuesLog}) executes at
 *       once with them, without waiting for values or signals: the entry exists only because the
 *       command already finished execution-atomically here before, so its execution overlapped every
 *       other involved partition's, and the logged values are the ones it read then; it still sends
 *       its signal and values (harmless duplicates that help lagging peers).</li>
 *   <li><b>Failures</b>: {@link #readsFailed} (localReads/remoteReads threw) sends empty values and
 *       gives the command the error result without executing it (so do local values larger than a
 *       partition message carries); the result of {@link #executed}
 *       (an error for exceptions) is the reply. Either still waits for the signals before finishing
 *       (the same rule for every command).</li>
 *   <li><b>Signals off</b> ({@link SsmrConfig#signals} false, UNSAFE): a command finishes as soon as
 *       it executed; only remote reads are awaited.</li>
 *   <li><b>Sessions, evicted in the order</b> (the paper is silent: Alg. 1 and §IV-B assume each
 *       command is delivered once, while §II allows an unbounded set of clients). Before this core
 *       sees a command, the replica admits it through its replicated client-session table
 *       ({@code dev.parallax.core.session.ClientSessions}: exactly once and in order per client and
 *       destination set); a duplicate, a gap or an expired session never reaches the core. The
 *       verdict on a command to several partitions must be the same at every one of them, or one
 *       executes it and waits at rule 4 for ever for a partition that refused it. So evictions are
 *       a function of an order every partition shares: the sessions of streams to several
 *       partitions form a pool of their own, whose recency and evictions follow only the commands to
 *       several partitions, which the global ring delivers to every replica of every partition in one
 *       order (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5); a partition's own ring's clients
 *       evict only single-partition sessions. An evicted session of several partitions is
 *       {@code EXPIRED} at every partition from the same point of the global order on. For the same
 *       reason the core's own bounded memories of finished commands (rules 6 and 8) keep only
 *       commands to several partitions: a single-partition command never gets a partition message,
 *       and client ids are the clients' choice, so a flood of new ones must not push out what a
 *       lagging peer will ask for.</li>
 *   <li><b>Caching</b> ({@link SsmrCacheConfig}, {@code ssmr.cache}; seed 004 §IV-C conservative
 *       caching): for a command whose plan ({@link #readsComputed(CommandId, ByteBuffer, GroupSet,
 *       CachedExchange.Plan)}) lists variables of an owner, the owner's values travel as
 *       {@link PartitionMessage.CachedValues} with ⊥ for what the reader holds current, the reader
 *       resolves them from its cache before executing, and a {@link PartitionMessage.FullRequest}
 *       fetches every value when it cannot: {@link CachedExchange}'s rules 1-7. Messages of the
 *       wrong kind for the plan, or malformed, are dropped and counted ({@link SsmrCacheCounters}).</li>
 * </ol>
 *
 * <p>Not thread-safe: one thread (the driver's) calls every method. Inputs that do not fit the
 * state (results for a command that is not the head in the matching phase) are driver bugs:
 * {@link IllegalStateException}.
 */
public final class SsmrCore {
    private enum Phase { QUEUED, READING, AWAITING_VALUES, EXECUTING, AWAITING_SIGNALS }

    private static final class Pending {
        final Command command;
        final long others;
        final RemoteValues logged;
        Phase phase = Phase.QUEUED;
        long heard;
        final TreeMap<Integer, ByteBuffer> values = new TreeMap<>();
        long needed;
        GroupSet remoteReads;
        ResendCache.Sent sent;
        CachedExchange.Plan plan;
        long cachedBits;
        long wantFull;
        RemoteValues executedWith;
        CommandResult result;
        long waitingSince;

        Pending(Command command, long others, RemoteValues logged) {
            this.command = command;
            this.others = others;
            this.logged = logged;
        }
    }

    private static final class Early {
        long heard;
        final TreeMap<Integer, ByteBuffer> values = new TreeMap<>();
        long cachedBits;
        final long firstSeen;
        long bytes = SsmrConfig.EARLY_ENTRY_OVERHEAD;

        Early(long firstSeen) {
            this.firstSeen = firstSeen;
        }
    }

    private final SsmrConfig config;
    private final int p;
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private final Map<CommandId, Pending> pending = new HashMap<>();
    private final LinkedHashMap<CommandId, Early> early = new LinkedHashMap<>();
    private long earlyBytes;
    private final FinishedStreams finished;
    private final ResendCache resendCache;
    private final CoreCaching caching;
    private long now;
    private List<SsmrEffect> out = new ArrayList<>();

    private long skipped;
    private long earlyBuffered;
    private long earlyRefused;
    private long earlyExpired;
    private long late;
    private long duplicates;
    private long foreign;
    private long requestsSent;
    private long requestsAnswered;
    private long pushedAhead;
    private long finishedCount;

    /** A core in its initial state (nothing delivered, time 0), with a cache of its own. */
    public SsmrCore(SsmrConfig config) {
        this(config, new ReadCache());
    }

    /** A core in its initial state over {@code cache} (the {@link SsmrStateMachine}'s, which snapshots it). */
    SsmrCore(SsmrConfig config, ReadCache cache) {
        this.config = Objects.requireNonNull(config, "config");
        this.caching = new CoreCaching(config, cache);
        this.p = config.partition();
        this.finished = new FinishedStreams(config.finishedStreams());
        this.resendCache = new ResendCache(config.resendCache());
    }

    /** The configuration. */
    public SsmrConfig config() {
        return config;
    }

    /** A command delivered by atomic multicast, in delivery order (not a replay). */
    public List<SsmrEffect> delivered(Command command) {
        return delivered(command, null);
    }

    /**
     * A command delivered by atomic multicast, in delivery order.
     *
     * @param logged the values a {@link RemoteValuesLog} holds for it (a replay), or null
     */
    public List<SsmrEffect> delivered(Command command, RemoteValues logged) {
        Objects.requireNonNull(command, "command");
        GroupSet dests = command.groups();
        if (!dests.contains(p) || pending.containsKey(command.id())) {
            skipped++;
            out.add(new SsmrEffect.Skip(command));
            return drain();
        }
        long others = dests.bits() & ~(1L << p);
        Pending c = new Pending(command, others, logged);
        Early e = early.remove(command.id());
        if (e != null) {
            earlyBytes -= e.bytes;
            c.heard = e.heard;
            c.values.putAll(e.values);
            c.cachedBits = e.cachedBits;
        }
        queue.addLast(c);
        pending.put(command.id(), c);
        if (config.signals() && config.earlySignals()) {
            PartitionMessage.Signal s = new PartitionMessage.Signal(command.id(), p);
            forEach(others, q -> out.add(new SsmrEffect.Send(q, s)));
        }
        advance();
        return drain();
    }

    /**
     * The head command's reads: {@code localValues} from localReads (sent to the other involved
     * partitions), {@code remoteReads} from remoteReads (null if none).
     *
     * @throws IllegalStateException if {@code command} is not the head awaiting its reads
     */
    public List<SsmrEffect> readsComputed(CommandId command, ByteBuffer localValues, GroupSet remoteReads) {
        return readsComputed(command, localValues, remoteReads, null);
    }

    /** As above with the command's caching plan (rule 13; null without): the owners it lists exchange cached values. */
    List<SsmrEffect> readsComputed(CommandId command, ByteBuffer localValues, GroupSet remoteReads,
                                   CachedExchange.Plan plan) {
        Pending c = head(command, Phase.READING);
        c.plan = plan;
        if (plan != null && plan.cached(p) && c.others != 0) {
            c.sent = caching.send(command, p, c.others, plan);
            if (c.sent == null) {
                return readsFailed(command, CommandResult.error("the variables read here are more than a partition "
                        + "message carries"), plan);
            }
            forEach(c.others, q -> out.add(new SsmrEffect.Send(q, c.sent.to(q))));
        }
        caching.noteWrites(plan);
        int limit = config.maxMessageBytes() - PartitionMessageCodec.MAX_HEADER_BYTES;
        if (localValues != null && localValues.remaining() > limit) {
            return readsFailed(command, CommandResult.error("localReads returned " + localValues.remaining()
                    + " bytes, more than the " + limit + " a partition message carries"), plan);
        }
        c.remoteReads = remoteReads;
        c.needed = (remoteReads == null ? 0 : remoteReads.bits() & c.others) | (plan == null ? 0 : plan.expected(c.others));
        if (c.sent == null) {
            sendValues(c, localValues);
        }
        return startWaiting(c, Phase.AWAITING_VALUES);
    }

    /**
     * The head command's localReads or remoteReads threw: empty values are sent and {@code error}
     * becomes its result (it is not executed).
     *
     * @throws IllegalStateException if {@code command} is not the head awaiting its reads
     */
    public List<SsmrEffect> readsFailed(CommandId command, CommandResult error) {
        return readsFailed(command, error, null);
    }

    /** As above with the command's caching plan, if computed ({@link CachedExchange} rules 5, 6). */
    List<SsmrEffect> readsFailed(CommandId command, CommandResult error, CachedExchange.Plan plan) {
        Pending c = head(command, Phase.READING);
        caching.failed(plan, p);
        if (c.sent == null && config.cache().enabled()) {
            c.sent = caching.failedMarker(command, p);
            forEach(c.others, q -> out.add(new SsmrEffect.Send(q, c.sent.to(q))));
        } else if (c.sent == null) {
            sendValues(c, ByteBuffer.allocate(0));
        }
        c.result = Objects.requireNonNull(error, "error");
        c.executedWith = RemoteValues.NONE;
        return startWaiting(c, Phase.AWAITING_SIGNALS);
    }

    /**
     * The head command executed with {@code result} (an error result if execute threw).
     *
     * @throws IllegalStateException if {@code command} is not the head being executed
     */
    public List<SsmrEffect> executed(CommandId command, CommandResult result) {
        Pending c = head(command, Phase.EXECUTING);
        c.result = Objects.requireNonNull(result, "result");
        return startWaiting(c, Phase.AWAITING_SIGNALS);
    }

    /** A message from another partition (any of its replicas; possibly duplicated, late or early). */
    public List<SsmrEffect> received(PartitionMessage message) {
        Objects.requireNonNull(message, "message");
        CommandId id = message.command();
        int from = message.from();
        long dests = id.groups().bits();
        if (from == p || (dests & (1L << p)) == 0 || (dests & (1L << from)) == 0) {
            foreign++;
            return drain();
        }
        if (message instanceof PartitionMessage.Request) {
            answer(id, from, false);
            return drain();
        }
        if (message instanceof PartitionMessage.FullRequest) {
            answer(id, from, true);
            return drain();
        }
        if (!caching.wellFormed(message)) {
            return drain();
        }
        Pending c = pending.get(id);
        if (c != null) {
            if (merge(message, c.values, c.heard)) {
                c.heard |= 1L << from;
                c.cachedBits |= message instanceof PartitionMessage.CachedValues ? 1L << from : 0;
                if (c == queue.peekFirst()) {
                    advance();
                }
            }
            return drain();
        }
        if (isFinished(id)) {
            late++;
            return drain();
        }
        Early e = early.get(id);
        long size = PartitionMessage.valueBytes(message);
        if (e == null) {
            if (early.size() >= config.maxEarlyCommands()
                    || earlyBytes + SsmrConfig.EARLY_ENTRY_OVERHEAD + size > config.maxEarlyBytes()) {
                earlyRefused++;
                return drain();
            }
            e = new Early(now);
            early.put(id, e);
            earlyBytes += e.bytes;
        } else if (size > 0 && earlyBytes + size > config.maxEarlyBytes()) {
            earlyRefused++;
            return drain();
        }
        if (merge(message, e.values, e.heard)) {
            e.heard |= 1L << from;
            e.cachedBits |= message instanceof PartitionMessage.CachedValues ? 1L << from : 0;
            if (size > 0) {
                e.bytes += size;
                earlyBytes += size;
            }
            earlyBuffered++;
        }
        return drain();
    }

    /**
     * Time passes: retransmission requests for a head waiting too long, expiry of old early
     * messages. {@code nowNanos} must not decrease (a smaller value is ignored).
     */
    public List<SsmrEffect> tick(long nowNanos) {
        if (nowNanos > now) {
            now = nowNanos;
        }
        Pending c = queue.peekFirst();
        if (c != null && (c.phase == Phase.AWAITING_VALUES || c.phase == Phase.AWAITING_SIGNALS)
                && now - c.waitingSince >= config.resendAfterNanos()) {
            c.waitingSince = now;
            long missing = c.phase == Phase.AWAITING_VALUES ? c.others & ~c.heard | neededWithoutValues(c)
                    : c.others & ~c.heard;
            PartitionMessage.Request r = new PartitionMessage.Request(c.command.id(), p);
            PartitionMessage.FullRequest f = new PartitionMessage.FullRequest(c.command.id(), p);
            forEach(missing, q -> {
                requestsSent++;
                out.add(new SsmrEffect.Send(q, (c.wantFull & (1L << q)) != 0 ? f : r));
            });
        }
        for (Iterator<Early> it = early.values().iterator(); it.hasNext(); ) {
            Early e = it.next();
            if (now - e.firstSeen < config.earlyTtlNanos()) {
                break;
            }
            it.remove();
            earlyBytes -= e.bytes;
            earlyExpired++;
        }
        return drain();
    }

    /** The command running now (the oldest delivered and not finished), or null. */
    public Command head() {
        Pending c = queue.peekFirst();
        return c == null ? null : c.command;
    }

    /** How many delivered commands of this partition have not finished yet. */
    public int queued() {
        return queue.size();
    }

    /** True if no delivered command waits to finish. */
    public boolean idle() {
        return queue.isEmpty();
    }

    /** The counters so far (a copy). */
    public SsmrCounters counters() {
        return new SsmrCounters(skipped, earlyBuffered, earlyRefused, earlyExpired, late, duplicates, foreign,
                requestsSent, requestsAnswered, pushedAhead, finishedCount, early.size(), earlyBytes);
    }

    /** The caching counters so far (a copy). */
    public SsmrCacheCounters cacheCounters() {
        return caching.counters();
    }

    // ---------------------------------------------------------------- internals

    /**
     * The head {@code c} now waits in {@code phase} (for the others' values or signals), its resend
     * clock starting now; then the queue advances as far as it can.
     */
    private List<SsmrEffect> startWaiting(Pending c, Phase phase) {
        c.phase = phase;
        c.waitingSince = now;
        advance();
        return drain();
    }

    private void advance() {
        while (true) {
            Pending c = queue.peekFirst();
            if (c == null) {
                return;
            }
            switch (c.phase) {
                case QUEUED -> {
                    c.phase = Phase.READING;
                    out.add(new SsmrEffect.ComputeReads(c.command));
                    return;
                }
                case AWAITING_VALUES -> {
                    RemoteValues with;
                    if (c.logged != null) {
                        with = c.logged;
                        caching.apply(c.plan, p, c.needed, with);
                    } else if (neededWithoutValues(c) == 0) {
                        long[] wantFull = {c.wantFull};
                        with = caching.resolve(c.command.id(), p, c.needed, c.values, c.cachedBits, c.plan, wantFull, out);
                        c.wantFull = wantFull[0];
                        if (with == null) {
                            return; // rule 13: dropped values are asked again
                        }
                    } else {
                        return;
                    }
                    c.executedWith = with;
                    c.phase = Phase.EXECUTING;
                    out.add(new SsmrEffect.Execute(c.command, c.remoteReads, with));
                    return;
                }
                case AWAITING_SIGNALS -> {
                    if (c.logged == null && config.signals() && (c.others & ~c.heard) != 0) {
                        return;
                    }
                    finish(c);
                }
                default -> {
                    return;
                }
            }
        }
    }

    private void finish(Pending c) {
        queue.removeFirst();
        CommandId id = c.command.id();
        pending.remove(id);
        out.add(new SsmrEffect.LogValues(id, c.executedWith));
        out.add(new SsmrEffect.Reply(c.command, c.result));
        finishedCount++;
        if (c.others == 0) {
            return; // no other partition ever asks about it (rule 12)
        }
        if (c.sent != null) {
            resendCache.put(id, c.sent);
        }
        finished.add(id);
    }

    private void sendValues(Pending c, ByteBuffer localValues) {
        ByteBuffer v = localValues == null ? ByteBuffer.allocate(0) : localValues;
        PartitionMessage.Values m = new PartitionMessage.Values(c.command.id(), p, v);
        c.sent = new ResendCache.Sent(m, null, null);
        forEach(c.others, q -> out.add(new SsmrEffect.Send(q, m)));
    }

    private long neededWithoutValues(Pending c) {
        long missing = 0;
        for (int q = nextBit(c.needed, 0); q >= 0; q = nextBit(c.needed, q + 1)) {
            if (!c.values.containsKey(q)) {
                missing |= 1L << q;
            }
        }
        return missing;
    }

    /** Merges a signal or values; false if it adds nothing (a duplicate, counted). */
    private boolean merge(PartitionMessage m, TreeMap<Integer, ByteBuffer> values, long heard) {
        int from = m.from();
        ByteBuffer bytes = m instanceof PartitionMessage.Values v ? v.values()
                : m instanceof PartitionMessage.CachedValues v ? v.values() : null;
        if (bytes != null) {
            if (values.containsKey(from)) {
                duplicates++;
                return false;
            }
            values.put(from, bytes);
            return true;
        }
        if ((heard & (1L << from)) != 0) {
            duplicates++;
            return false;
        }
        return true;
    }

    private void answer(CommandId id, int to, boolean full) {
        Pending c = pending.get(id);
        PartitionMessage reply = null;
        ResendCache.Sent cached = null;
        if (c != null) {
            // a command not started yet must not look started: its values go out when it starts
            reply = c.sent != null ? (full ? c.sent.fullTo(to) : c.sent.to(to))
                    : config.signals() && config.earlySignals() ? new PartitionMessage.Signal(id, p) : null;
        } else {
            cached = resendCache.get(id);
            reply = cached != null ? (full ? cached.fullTo(to) : cached.to(to))
                    : isFinished(id) && config.signals() ? new PartitionMessage.Signal(id, p) : null;
        }
        if (reply != null) {
            requestsAnswered++;
            caching.answered(full);
            out.add(new SsmrEffect.Send(to, reply));
        }
        if (cached != null) {
            pushAhead(id, to);
        }
    }

    /**
     * Rule 8's catch-up push-ahead: a request for a finished command {@code asked} comes from a
     * replica of {@code to} that is behind, so the messages of the next finished commands involving
     * {@code to} go with the answer ({@link ResendCache#after}); only liveness depends on it.
     */
    private void pushAhead(CommandId asked, int to) {
        List<PartitionMessage> next = new ArrayList<>();
        resendCache.after(asked, to, SsmrConfig.RESEND_PUSH_AHEAD, config.maxMessageBytes(), next);
        for (PartitionMessage m : next) {
            out.add(new SsmrEffect.Send(to, m));
            pushedAhead++;
        }
    }

    private boolean isFinished(CommandId id) {
        return finished.contains(id);
    }

    private Pending head(CommandId id, Phase phase) {
        Pending c = queue.peekFirst();
        if (c == null || !c.command.id().equals(id) || c.phase != phase) {
            throw new IllegalStateException("no head command " + id + " in phase " + phase);
        }
        return c;
    }

    private List<SsmrEffect> drain() {
        List<SsmrEffect> effects = out;
        out = new ArrayList<>();
        return effects;
    }

    private static int nextBit(long bits, int from) {
        if (from > GroupSet.MAX_GROUP) {
            return -1;
        }
        long rest = bits & (-1L << from);
        return rest == 0 ? -1 : Long.numberOfTrailingZeros(rest);
    }

    private static void forEach(long bits, java.util.function.IntConsumer action) {
        for (int q = nextBit(bits, 0); q >= 0; q = nextBit(bits, q + 1)) {
            action.accept(q);
        }
    }
}
