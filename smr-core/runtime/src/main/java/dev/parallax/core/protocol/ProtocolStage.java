package dev.parallax.core.protocol;

import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Stage;
import dev.parallax.core.time.Clock;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;

/**
 * The Protocol stage (seed 000 §V-C2): the single thread that owns a {@link ProtocolCore}. Each
 * {@link #doWork()} drains a batch of peer messages, ticks the core when its timer is due, offers
 * waiting proposals while the core takes them, and then applies all collected effects at once
 * with an {@link EffectApplier} — so one log sync covers every vote of the batch (group commit)
 * and no message leaves before what it acknowledges is durable.
 *
 * <p>Messages the core sends to its own replica are looped back here without the transport.
 *
 * <p>Back-pressure from execution: when the decision outlet refuses a decision (execution is
 * behind), the stage keeps it and every later one in order, offers them again on each
 * {@code doWork}, and takes no new proposals until they are all handed over. It never blocks. The
 * kept decisions are bounded: once {@code maxUndelivered} wait, the stage stops draining the
 * inbox (ticks and control tasks go on), so peer messages wait in — or are dropped by — the
 * bounded inbox and the protocol recovers them by retransmission and catch-up once execution
 * has caught up. While decisions wait, the stage takes at most as many messages as decisions
 * still fit; the bound is soft only by what one message or tick can release at once (a
 * catch-up reply, instances decided out of order). Liveness does not suffer, because failure detection reads the
 * transport's arrival stamps ({@link #suspect}), not the inbox.
 *
 * <p>Safety alarm: when the core reports a {@link SafetyViolation} (two different decisions for
 * one instance), the stage counts it ({@code parallax.safety.alarms}), logs it at ERROR with both
 * decisions' origins, tells the {@link #onSafetyAlarm hook} (the replica stops serving) and from
 * then on drives the core no more: nothing of that step or later is stored, sent or decided, and
 * arriving messages and proposals are dropped and counted, as after a log failure.
 *
 * <p>Threads: {@code doWork} runs on one stage thread. Producers (transport readers, the batcher)
 * only touch the bounded queues.
 *
 * @param <M> message type
 * @param <R> durable record type
 * @param <V> value type
 */
public final class ProtocolStage<M, R, V> implements Stage {

    /** A message received from a peer. */
    public record Inbound<M>(int from, M message) {
    }

    /** Where decisions go; refuses (returns false) when execution is behind. Never blocks. */
    @FunctionalInterface
    public interface DecisionOutlet<V> {
        boolean offer(long instance, V value);
    }

    private record Decision<V>(long instance, V value) {
    }

    /** Decisions kept for a lagging execution before the stage stops draining its inbox, by default. */
    public static final int DEFAULT_MAX_UNDELIVERED = 4096;

    private final String name;
    private final int self;
    private final ProtocolCore<M, R, V> core;
    private final BoundedQueue<Inbound<M>> inbox;
    private final BoundedQueue<V> proposals;
    private final EffectApplier<M, R, V> applier;
    private final ReadBatches reads = new ReadBatches(ReadBatches.DEFAULT_CAPACITY,
            java.util.concurrent.ThreadLocalRandom.current().nextLong() >>> 1);
    private final Clock clock;
    private final long maxTickInterval;
    private final int batchLimit;
    private final EffectBuffer<M, R, V> effects = new EffectBuffer<>();
    private final ArrayDeque<M> loopback = new ArrayDeque<>();
    private final ArrayDeque<Decision<V>> undelivered = new ArrayDeque<>();
    private final int maxUndelivered;
    private volatile int undeliveredHighWater;
    /** The highest view suspected by the failure detector and not yet handed to the core; -1 if none. */
    private final java.util.concurrent.atomic.AtomicLong suspected = new java.util.concurrent.atomic.AtomicLong(-1);
    /** Members suspected in one epoch, not yet handed to the core (the highest epoch wins); null if none. */
    private final java.util.concurrent.atomic.AtomicReference<SuspectedMembers> suspectedMembers =
            new java.util.concurrent.atomic.AtomicReference<>();
    private final BoundedQueue<java.util.function.Consumer<ProtocolStage<M, R, V>>> control =
            dev.parallax.core.stage.Queues.mpsc(64);
    private final DurableLog log;
    private final DecisionOutlet<V> outlet;
    private Runnable afterWork = () -> { };
    /** Where delivery progress is read (set before start); null when no one reports it. */
    private java.util.function.LongSupplier deliveryProgress;
    /** The last delivery progress handed to the core. Protocol thread only. */
    private long deliveredBelow;
    /**
     * Set by {@link #registerMeters} before the stage thread starts (its start orders the writes);
     * null means no per-type or event meters. The maps below are the protocol thread's alone.
     */
    private io.micrometer.core.instrument.MeterRegistry registry;
    private String protocolTag;
    private final java.util.Map<Class<?>, io.micrometer.core.instrument.Counter> sentByType = new java.util.HashMap<>();
    private final java.util.Map<Class<?>, io.micrometer.core.instrument.Counter> receivedByType = new java.util.HashMap<>();
    private final java.util.Map<String, java.util.concurrent.atomic.AtomicLong> events = new java.util.HashMap<>();
    private final java.util.function.ObjLongConsumer<String> eventSink = this::publishEvent;
    private final java.util.concurrent.atomic.LongAdder[] counts = {
            new java.util.concurrent.atomic.LongAdder(), new java.util.concurrent.atomic.LongAdder(),
            new java.util.concurrent.atomic.LongAdder(), new java.util.concurrent.atomic.LongAdder()};
    private static final int SENT = 0;
    private static final int PERSISTED = 1;
    private static final int SYNCS = 2;
    private static final int DECIDED = 3;
    private V held;
    /** The core refused a proposal in the current pass of {@link #work}: offer none again before the next pass. */
    private boolean refusedThisPass;
    private volatile boolean ready;
    private volatile String storageFailure;
    /** Once it holds a violation the stage drives the core no more. */
    private final StageAlarm alarm;
    private final java.util.concurrent.atomic.LongAdder ignoredWhileFailed = new java.util.concurrent.atomic.LongAdder();
    private long nextTick;
    private long now;

    /**
     * @param inbox           peer messages (MPSC: transport threads produce)
     * @param proposals       values to order (SPSC from the batcher, or MPSC)
     * @param maxTickInterval longest time between two ticks even if the core asks for none
     * @param batchLimit      most messages handled per {@code doWork} before effects are applied
     */
    public ProtocolStage(String name, int self, ProtocolCore<M, R, V> core,
                         BoundedQueue<Inbound<M>> inbox, BoundedQueue<V> proposals,
                         DurableLog log, RecordCodec<R> codec, Transport<M> transport,
                         DecisionOutlet<V> decisions, dev.parallax.core.spi.SnapshotRequester snapshots,
                         Clock clock, long maxTickInterval, int batchLimit) {
        this(name, self, core, inbox, proposals, log, codec, transport, decisions, snapshots, clock, maxTickInterval,
                batchLimit, DEFAULT_MAX_UNDELIVERED);
    }

    /**
     * As the other constructor, with an explicit bound on decisions kept while execution lags.
     *
     * @param maxUndelivered decisions kept before the inbox is left alone; positive
     * @throws IllegalArgumentException if {@code maxUndelivered} is not positive
     */
    public ProtocolStage(String name, int self, ProtocolCore<M, R, V> core,
                         BoundedQueue<Inbound<M>> inbox, BoundedQueue<V> proposals,
                         DurableLog log, RecordCodec<R> codec, Transport<M> transport,
                         DecisionOutlet<V> decisions, dev.parallax.core.spi.SnapshotRequester snapshots,
                         Clock clock, long maxTickInterval, int batchLimit, int maxUndelivered) {
        if (maxUndelivered <= 0) {
            throw new IllegalArgumentException("maxUndelivered must be positive: " + maxUndelivered);
        }
        this.maxUndelivered = maxUndelivered;
        this.name = Objects.requireNonNull(name, "name");
        this.alarm = new StageAlarm(name);
        this.self = self;
        this.core = Objects.requireNonNull(core, "core");
        this.inbox = Objects.requireNonNull(inbox, "inbox");
        this.proposals = Objects.requireNonNull(proposals, "proposals");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.maxTickInterval = maxTickInterval;
        this.batchLimit = batchLimit;
        Objects.requireNonNull(transport, "transport");
        this.outlet = Objects.requireNonNull(decisions, "decisions");
        this.log = Objects.requireNonNull(log, "log");
        this.applier = new EffectApplier<>(new CountingLog(log, counts[PERSISTED], counts[SYNCS]), codec, (to, m) -> {
            counts[SENT].increment();
            countByType(sentByType, "parallax.protocol.messages.sent.by.type", m);
            if (to == self) {
                loopback.add(m);
            } else {
                transport.send(to, m);
            }
        }, (group, m) -> {
            counts[SENT].increment();
            countByType(sentByType, "parallax.protocol.messages.sent.by.type", m);
            transport.sendDatagram(group, m);
        }, this::decided, snapshots, alarm);
        applier.reads(reads);
        this.nextTick = clock.nanoTime();
    }

    /**
     * Where a safety alarm goes besides the stage's counter and ERROR line (the replica's
     * stop-serving hook); default {@link SafetyAlarm#NONE}. Called on the protocol thread; must not
     * block. Call before the stage runs.
     */
    public void onSafetyAlarm(SafetyAlarm hook) {
        alarm.hook(hook);
    }

    /** The first safety violation the core reported (the stage has stopped since), or null. Thread-safe. */
    public SafetyViolation safetyViolation() {
        return alarm.first();
    }

    /** Safety alarms raised so far (those of the first step that reported any: the stage stops there). Thread-safe. */
    public long safetyAlarms() {
        return alarm.count().sum();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<? extends BoundedQueue<?>> inputQueues() {
        return List.of(inbox, proposals, control, reads.queue());
    }

    /**
     * Asks the protocol thread to compact below {@code instance} (a snapshot covers it): the core
     * re-persists what it still needs, then every log record written before is truncated.
     * Thread-safe; returns at once.
     *
     * @return false if the control queue is full (try again with the next snapshot)
     */
    public boolean compact(long instance) {
        return control.offer(stage -> stage.runCompaction(instance));
    }

    /**
     * The failure detector suspects the leader of {@code view}: the protocol thread hands it to
     * {@link ProtocolCore#onSuspect} on its next {@code doWork}, after the inbox. Never dropped and
     * never blocking: one pending view is kept (the highest), and later duplicates merge into it.
     * Thread-safe.
     */
    public void suspect(long view) {
        if (view < 0) {
            return;
        }
        if (suspected.getAndAccumulate(view, Math::max) < 0) {
            // Wakes the stage; if the control queue is full the stage is busy and sees the slot anyway.
            control.offer(stage -> { });
        }
    }

    /** Pending member suspicions: bit {@code m} of {@code mask} for member {@code m}. */
    private record SuspectedMembers(long epoch, long mask) {
    }

    /**
     * The member detector suspects {@code member} in {@code epoch}: the protocol thread hands it to
     * {@link ProtocolCore#onSuspectMember} on its next {@code doWork}, after the inbox. Never
     * blocks and never dropped: one pending (epoch, members) is kept; a higher epoch replaces it, a
     * lower one is ignored, the same epoch merges. A negative epoch or a member outside 0..63 is
     * ignored. Thread-safe.
     */
    public void suspectMember(long epoch, int member) {
        if (epoch < 0 || member < 0 || member >= Long.SIZE) {
            return;
        }
        long bit = 1L << member;
        SuspectedMembers before = suspectedMembers.getAndUpdate(p -> {
            if (p == null || epoch > p.epoch()) {
                return new SuspectedMembers(epoch, bit);
            }
            return epoch == p.epoch() ? new SuspectedMembers(epoch, p.mask() | bit) : p;
        });
        if (before == null) {
            control.offer(stage -> { }); // wakes the stage; a full control queue means it is busy anyway
        }
    }

    /**
     * Where tentative positions and their revocations go (speculative execution, seed 003 (Marandi
     * thesis) §4.2.1; {@link Effects#tentative}), in step order with the decisions. A tentative is a
     * hint and is dropped while decisions wait for a lagging execution (speculating then gains
     * nothing) or when {@code outlet} refuses it; a revocation is offered all the same. Call before
     * the stage runs.
     */
    public void tentatives(EffectApplier.TentativeSink<V> outlet) {
        Objects.requireNonNull(outlet, "outlet");
        applier.tentatives((instance, value, revoked) -> {
            if (revoked || undelivered.isEmpty()) {
                outlet.tentative(instance, value, revoked);
            }
        });
    }

    /**
     * Where the stage reads delivery progress ("every decision below this was handed to the
     * listener", e.g. {@code DeliveryStage.deliveredBelow}); polled once per {@code doWork}, and
     * {@link ProtocolCore#onDelivered} is called only when it grew. Call before the stage runs.
     */
    public void deliveryProgress(java.util.function.LongSupplier progress) {
        this.deliveryProgress = Objects.requireNonNull(progress, "progress");
    }

    /**
     * Decisions kept now because execution lags (the delivery queue is full): a replica's local
     * replay after a restart, or a slow state machine. While there are {@code maxUndelivered} of
     * them the inbox is not drained. Protocol thread only (an observer, see
     * {@link #afterWork}).
     */
    public int undelivered() {
        return undelivered.size();
    }

    /** The most decisions ever kept at once for a lagging execution. Thread-safe. */
    public int undeliveredHighWater() {
        return undeliveredHighWater;
    }

    /**
     * An operation on the core asked from another thread (an operator's request): it runs on the
     * protocol thread like an input, and its effects are applied like any step's.
     */
    @FunctionalInterface
    public interface CoreOperation<M, R, V> {
        void run(ProtocolCore<M, R, V> core, long now, Effects<M, R, V> out);
    }

    /**
     * Runs {@code operation} on the protocol thread at its next work cycle, before its inputs.
     * Thread-safe; returns at once.
     *
     * @return false if the control queue is full (the caller reports it busy)
     */
    public boolean runOnCore(CoreOperation<M, R, V> operation) {
        java.util.Objects.requireNonNull(operation, "operation");
        return control.offer(stage -> operation.run(stage.core, stage.now, stage.effects));
    }

    /** Asks the protocol thread to continue after an installed snapshot covering every instance below {@code instance}. */
    public boolean skipTo(long instance) {
        return control.offer(stage -> stage.core.skipTo(instance));
    }

    /**
     * Like {@link #skipTo(long)}, handing the core the snapshot's delivery state
     * ({@link ProtocolCore#skipTo(long, java.nio.ByteBuffer)}). Thread-safe; returns at once.
     *
     * @param deliveryState read-only; not changed by the caller afterwards
     * @return false if the control queue is full
     */
    public boolean skipTo(long instance, java.nio.ByteBuffer deliveryState) {
        java.util.Objects.requireNonNull(deliveryState, "deliveryState");
        return control.offer(stage -> stage.core.skipTo(instance, deliveryState));
    }

    private void runCompaction(long instance) {
        applier.apply(effects); // whatever is pending goes first, in order
        long cut = log.nextIndex();
        core.compact(instance, effects);
        applier.apply(effects);
        log.sync();
        log.truncateBefore(cut);
        log.sync();
    }

    /**
     * Registers protocol-event meters (tag {@code protocol=<name>}): messages sent, records
     * persisted, log syncs (one per group commit), values decided; messages sent and received per
     * type ({@code parallax.protocol.messages.sent.by.type}, {@code ...received.by.type}, tag
     * {@code type}; a {@link MessageWrapper} counts as the message it wraps); and the core's own event counts ({@code parallax.protocol.events}, tag
     * {@code event}, see {@link ProtocolCore#reportEvents}), refreshed on every tick. Call before
     * the stage runs.
     */
    public void registerMeters(io.micrometer.core.instrument.MeterRegistry registry, String protocol) {
        this.protocolTag = protocol;
        this.registry = registry;
        io.micrometer.core.instrument.Gauge.builder("parallax.log.failed", this, st -> st.storageFailure == null ? 0 : 1)
                .description("1 once the durable log failed and the replica stopped voting")
                .tag("protocol", protocol).tag("stage", name).register(registry);
        io.micrometer.core.instrument.Gauge.builder("parallax.protocol.undelivered.max", this, st -> st.undeliveredHighWater)
                .description("most decisions kept at once while execution lagged (maxUndelivered, give or take what one message releases)")
                .tag("protocol", protocol).tag("stage", name).register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder("parallax.safety.alarms", alarm.count(),
                        java.util.concurrent.atomic.LongAdder::doubleValue)
                .description("two different decisions for one instance seen by this replica's learner; it stopped serving")
                .tag("protocol", protocol).tag("stage", name).register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder("parallax.protocol.ignored.after.log.failure", ignoredWhileFailed,
                        java.util.concurrent.atomic.LongAdder::doubleValue)
                .description("peer messages and proposals ignored because the durable log had failed")
                .tag("protocol", protocol).tag("stage", name).register(registry);
        String[] names = {"parallax.protocol.messages.sent", "parallax.protocol.records.persisted",
                "parallax.protocol.syncs", "parallax.protocol.decided"};
        String[] descriptions = {"messages the protocol stage sent to peers", "log records the protocol stage appended",
                "durable log syncs the protocol stage asked for (each forces the device under log.sync=every-batch)",
                "instances this replica learned decided"};
        for (int i = 0; i < names.length; i++) {
            java.util.concurrent.atomic.LongAdder a = counts[i];
            io.micrometer.core.instrument.FunctionCounter.builder(names[i], a, java.util.concurrent.atomic.LongAdder::doubleValue)
                    .description(descriptions[i])
                    .tag("protocol", protocol).tag("stage", name).register(registry);
        }
    }

    /**
     * A hook run on the protocol thread at the end of every {@code doWork}: lets the protocol's
     * runtime publish volatile views of the core's state (view, leader) without the core knowing
     * about threads.
     */
    public void afterWork(Runnable hook) {
        this.afterWork = Objects.requireNonNull(hook);
    }

    private void decided(long instance, V value) {
        counts[DECIDED].increment();
        if (!undelivered.isEmpty() || !outlet.offer(instance, value)) {
            undelivered.add(new Decision<>(instance, value));
            if (undelivered.size() > undeliveredHighWater) {
                undeliveredHighWater = undelivered.size();
            }
        }
    }

    private int flushDecisions() {
        int n = 0;
        Decision<V> d;
        while ((d = undelivered.peek()) != null && outlet.offer(d.instance(), d.value())) {
            undelivered.poll();
            n++;
        }
        return n;
    }

    /**
     * Why the stage stopped, or {@code null} while it works. Once the durable log fails (disk full,
     * I/O error) the replica stops taking part: it answers nothing, proposes nothing and decides
     * nothing, because it can no longer make a promise or vote durable — it must never acknowledge
     * what it did not store. Peers see it as crashed. An operator frees the disk and restarts it.
     */
    public String storageFailure() {
        return storageFailure;
    }

    /** The reads this stage asks its core for (read-index); set their listener before the stage runs. */
    public ReadBatches reads() {
        return reads;
    }

    @Override
    public int doWork() {
        if (storageFailure != null || alarm.first() != null) {
            int dropped = inbox.drain(m -> ignoredWhileFailed.increment(), batchLimit);
            dropped += proposals.drain(p -> ignoredWhileFailed.increment(), batchLimit);
            control.drain(t -> { }, 16);
            return dropped + (reads.inUse() ? reads.failAll(dev.parallax.core.spi.ReadListener.NO_LEADER) : 0);
        }
        try {
            return work();
        } catch (dev.parallax.core.spi.DurableLogException e) {
            storageFailure = e.getMessage() == null ? e.toString() : e.getMessage();
            effects.clear();
            loopback.clear();
            org.slf4j.LoggerFactory.getLogger(ProtocolStage.class).error(
                    "{}: the durable log failed ({}); this replica stops voting and proposing until it is restarted",
                    name, storageFailure, e);
            return 1;
        }
    }

    private int work() {
        now = clock.nanoTime();
        refusedThisPass = false;
        int work = control.drain(task -> task.accept(this), 16);
        work += flushDecisions();
        int room = maxUndelivered - undelivered.size();
        if (room > 0) {
            // Take no more messages than decisions still fit: even with nothing kept yet, the
            // outlet may refuse the very next decision, and every message may decide one.
            work += inbox.drain(this::onInbound, Math.min(batchLimit, room));
        }
        if (reads.inUse()) {
            work += reads.drain(core, now, effects);
        }
        if (suspected.get() >= 0) {
            core.onSuspect(suspected.getAndSet(-1), now, effects);
            work++;
        }
        SuspectedMembers members = suspectedMembers.getAndSet(null);
        if (members != null) {
            for (long mask = members.mask(); mask != 0; mask &= mask - 1) {
                core.onSuspectMember(Long.numberOfTrailingZeros(mask), members.epoch(), now, effects);
                work++;
            }
        }
        if (deliveryProgress != null) {
            long below = deliveryProgress.getAsLong();
            if (below > deliveredBelow) {
                deliveredBelow = below;
                core.onDelivered(below, now, effects);
                work++;
            }
        }
        if (now - nextTick >= 0) {
            core.onTick(now, effects);
            core.reportEvents(eventSink);
            nextTick = now + maxTickInterval;
            work++;
        }
        work += offerProposals();
        while (!effects.isEmpty()) {
            long wake = applier.apply(effects);
            if (applier.stopped()) {
                loopback.clear();
                effects.clear();
                break;
            }
            if (wake != Long.MAX_VALUE && wake - nextTick < 0) {
                nextTick = wake;
            }
            for (int i = loopback.size(); i > 0; i--) {
                core.onMessage(self, loopback.poll(), now, effects);
                work++;
            }
            work += offerProposals(); // nothing after a refusal in this pass (see offerProposals)
        }
        ready = held == null && undelivered.isEmpty() && core.canPropose();
        afterWork.run();
        return work;
    }

    /**
     * Whether the core would take a proposal now and none is waiting: a hint the batcher reads
     * (seed 000 §V-C1: the Batcher reads the number of ballots in flight through a volatile).
     */
    public boolean readyForProposal() {
        return ready && proposals.isEmpty();
    }

    private void onInbound(Inbound<M> in) {
        countByType(receivedByType, "parallax.protocol.messages.received.by.type", in.message());
        core.onMessage(in.from(), in.message(), now, effects);
    }

    /**
     * Per message type counters (tag {@code type} = the message class's simple name, a
     * {@link MessageWrapper}'s the wrapped message's); protocol thread only.
     */
    private void countByType(java.util.Map<Class<?>, io.micrometer.core.instrument.Counter> byType, String meter, M m) {
        if (registry == null) {
            return;
        }
        Class<?> type = m instanceof MessageWrapper w ? w.wrapped().getClass() : m.getClass();
        io.micrometer.core.instrument.Counter c = byType.get(type);
        if (c == null) {
            c = io.micrometer.core.instrument.Counter.builder(meter).description(meter.contains(".sent.")
                            ? "protocol messages sent, by message type" : "protocol messages received, by message type")
                    .tag("protocol", protocolTag).tag("stage", name)
                    .tag("type", type.getSimpleName()).register(registry);
            byType.put(type, c);
        }
        c.increment();
    }

    /** Publishes one of the core's event counts; protocol thread only (the meter reads the AtomicLong). */
    private void publishEvent(String event, long count) {
        java.util.concurrent.atomic.AtomicLong a = events.get(event);
        if (a == null) {
            if (registry == null) {
                return;
            }
            a = new java.util.concurrent.atomic.AtomicLong();
            io.micrometer.core.instrument.FunctionCounter.builder("parallax.protocol.events", a,
                            java.util.concurrent.atomic.AtomicLong::doubleValue)
                    .description("the protocol core's own event counts, by event (ProtocolCore.reportEvents)")
                    .tag("protocol", protocolTag).tag("stage", name).tag("event", event).register(registry);
            events.put(event, a);
        }
        a.set(count);
    }

    /**
     * Offers the held proposal, then queued ones, until the core refuses one. After a refusal no
     * proposal is offered again in the same pass: a core may emit effects while refusing (S-Paxos'
     * dissemination asks for a wake-up), and re-offering after applying them would loop forever
     * inside one pass, never draining the inbox whose decisions would make room.
     */
    private int offerProposals() {
        int taken = 0;
        if (!undelivered.isEmpty() || refusedThisPass) {
            return 0; // execution is behind: start nothing new; or the core just refused
        }
        while (true) {
            if (held == null) {
                held = proposals.poll();
                if (held == null) {
                    return taken;
                }
            }
            if (!core.onProposal(held, now, effects)) {
                refusedThisPass = true;
                return taken;
            }
            held = null;
            taken++;
        }
    }
}
