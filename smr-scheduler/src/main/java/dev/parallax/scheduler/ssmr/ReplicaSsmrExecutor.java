package dev.parallax.scheduler.ssmr;

import dev.parallax.core.Command;
import dev.parallax.core.StateMachine;
import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.runtime.ReplicaBoundExecutor;
import dev.parallax.core.stage.ThreadPlacement;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.ResultSink;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.spi.WireReader;
import dev.parallax.core.spi.WireWriter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * The {@link SsmrExecutor} of a replica (seed 004 (S-SMR) §IV): bound to the replica
 * ({@link ReplicaBoundExecutor#bind}), it sends and receives partition messages on the replica-port
 * channel {@value #CHANNEL} (authenticated and encrypted like every replica channel when
 * {@code tls.replica=required}), keeps the remote values of finished commands in the replica's
 * durable log {@value DurableRemoteValuesLog#NAME}, and publishes its counters as meters
 * ({@code parallax.ssmr.*}, tag {@code replica}).
 *
 * <p>A message to partition q goes to every replica of q ({@code members.get(q)}: its replicas of
 * the cluster file and those that may join it at run time); one to a replica the transport does not
 * know (a joiner not added yet) is counted ({@code parallax.ssmr.messages.unaddressed}) and
 * dropped; a malformed message from a peer is counted ({@code parallax.ssmr.messages.malformed}) and
 * dropped, as is one that finds the executor's inbox full (retransmission recovers it).
 *
 * <p>Threads: as {@link SsmrExecutor}; {@link #bind} once, on the replica's starting thread, before
 * {@link #start}. Unbound, {@link #start} throws {@link IllegalStateException}.
 */
public final class ReplicaSsmrExecutor implements ReplicaBoundExecutor {
    /** The replica-port channel of S-SMR's partition messages. */
    public static final String CHANNEL = "ssmr";

    private final SsmrConfig config;
    private final List<int[]> members;
    /** Messages to a partition's replica the transport does not know (a joiner not added yet). */
    private volatile io.micrometer.core.instrument.Counter unreachable;
    private SsmrExecutor executor;
    private DurableRemoteValuesLog log;
    private Transport<ByteBuffer> transport;

    /**
     * @param config  this replica's partition, the partition count and the executor's bounds
     * @param members the replica ids of each partition, {@code config.partitions()} of them
     */
    public ReplicaSsmrExecutor(SsmrConfig config, List<int[]> members) {
        this.config = Objects.requireNonNull(config, "config");
        if (members.size() != config.partitions()) {
            throw new IllegalArgumentException(members.size() + " partitions' members for " + config.partitions() + " partitions");
        }
        this.members = List.copyOf(members);
    }

    /**
     * {@link ThreadPlacement#STAGED} whatever the cores: measured on 2 cores (docs/benchmarks.md,
     * "No regression"), a 3-replica S-SMR store with one partition carried 1.1–1.2× more under
     * staged than under compact (four alternating runs), while plain replicas carry more under
     * compact. Its own executor thread and the partition channel's traffic run beside the pipeline;
     * why compact loses here was not profiled.
     */
    @Override
    public ThreadPlacement autoPlacement(int cores) {
        return ThreadPlacement.STAGED;
    }

    @Override
    public synchronized void bind(OrderingContext context) {
        if (executor != null) {
            throw new IllegalStateException("already bound");
        }
        int self = context.config().id();
        if (java.util.Arrays.stream(members.get(config.partition())).noneMatch(id -> id == self)) {
            throw new IllegalArgumentException("replica " + self + " is not a member of partition " + config.partition());
        }
        transport = context.transport(CHANNEL, new Opaque(config.maxMessageBytes() + PartitionMessageCodec.MAX_HEADER_BYTES));
        log = DurableRemoteValuesLog.open(context.durableLog(DurableRemoteValuesLog.NAME), config.partition());
        Transport<ByteBuffer> t = transport;
        SsmrExecutor[] ref = new SsmrExecutor[1];
        PartitionLinks links = (partition, message) -> {
            ByteBuffer bytes = ref[0].codec().encode(message);
            for (int id : members.get(partition)) {
                if (id != self) {
                    try {
                        t.send(id, bytes.duplicate());
                    } catch (IllegalArgumentException notYetMember) {
                        // A replica that may join the partition and has not (or whose addition this
                        // replica has not learned yet): PartitionLinks drops, retransmission recovers.
                        unreachable.increment();
                    }
                }
            }
        };
        executor = new SsmrExecutor(config, log, links);
        ref[0] = executor;
        registerMeters(context.meterRegistry(), Integer.toString(self), log);
        unreachable = io.micrometer.core.instrument.Counter.builder("parallax.ssmr.messages.unaddressed")
                .description("partition messages not sent to a replica that may join a partition but is no member (yet)")
                .tag("replica", Integer.toString(self)).register(context.meterRegistry());
        SsmrExecutor e = executor;
        transport.start((from, bytes) -> e.receive(bytes));
    }

    private void registerMeters(MeterRegistry registry, String replica, DurableRemoteValuesLog log) {
        SsmrExecutor e = executor;
        counter(registry, "parallax.ssmr.messages.malformed", "partition messages that did not parse (dropped)", replica,
                x -> e.malformedMessages());
        counter(registry, "parallax.ssmr.messages.dropped", "partition messages dropped at a full inbox (re-sent on request)",
                replica, x -> e.droppedMessages());
        counter(registry, "parallax.ssmr.requests.sent", "retransmission requests sent for a command waiting too long",
                replica, x -> e.counters().requestsSent());
        counter(registry, "parallax.ssmr.requests.answered", "retransmission requests of other partitions answered",
                replica, x -> e.counters().requestsAnswered());
        counter(registry, "parallax.ssmr.pushed.ahead", "values of later finished commands sent to a replica that is behind",
                replica, x -> e.counters().pushedAhead());
        counter(registry, "parallax.ssmr.cache.values", "variables sent with their value in cached values (ssmr.cache)",
                replica, x -> e.cacheCounters().valuesSent());
        counter(registry, "parallax.ssmr.cache.current", "variables answered as current (the value caching saved)",
                replica, x -> e.cacheCounters().bottomsSent());
        counter(registry, "parallax.ssmr.cache.misses", "current answers this replica could not resolve (it asked for every value)",
                replica, x -> e.cacheCounters().misses());
        counter(registry, "parallax.ssmr.cache.malformed", "cached values dropped: malformed or not what the command expects",
                replica, x -> e.cacheCounters().malformed());
        Gauge.builder("parallax.ssmr.values.logged", log, DurableRemoteValuesLog::size)
                .description("finished multi-partition commands whose remote values are kept for replay")
                .tag("replica", replica).register(registry);
    }

    /**
     * A counter read from this replica's executor. The registry holds its state object weakly and
     * freezes a counter whose object was collected, so the object is the executor (held by this
     * replica), not a throwaway.
     */
    private void counter(MeterRegistry registry, String name, String description, String replica,
                         ToDoubleFunction<SsmrExecutor> f) {
        FunctionCounter.builder(name, executor, f).description(description).tag("replica", replica).register(registry);
    }

    private SsmrExecutor bound() {
        SsmrExecutor e = executor;
        if (e == null) {
            throw new IllegalStateException("not bound to a replica: Replica.start binds it");
        }
        return e;
    }

    /**
     * Starts the executor; the remote-values log is truncated as snapshots are written: when a
     * snapshot is written, through the previous snapshot's finish index. A restart resumes from the
     * newest durable snapshot, so the entries after the one before it are kept (if two snapshots in
     * a row fail to be written, a restart from an older one replays commands whose entries are gone:
     * they wait for their signals again — see docs/protocols/s-smr.md).
     */
    @Override
    public void start(StateMachine stateMachine, ResultSink results) {
        SsmrExecutor e = bound();
        if (stateMachine instanceof SsmrStateMachine ssmr) {
            java.util.concurrent.atomic.AtomicLong previous = new java.util.concurrent.atomic.AtomicLong(-1);
            ssmr.onSnapshot(index -> {
                long before = previous.getAndSet(index);
                if (before >= 0 && before < index) {
                    log.truncateThrough(before);
                }
            });
        }
        e.start(stateMachine, results);
    }

    @Override
    public void execute(Command command) throws InterruptedException {
        bound().execute(command);
    }

    @Override
    public void awaitQuiescence() throws InterruptedException {
        bound().awaitQuiescence();
    }

    /** The executor, once bound (its counters, for tests and meters). */
    public SsmrExecutor executor() {
        return bound();
    }

    @Override
    public synchronized void close() {
        if (executor != null) {
            executor.close();
        }
        if (transport != null) {
            transport.close();
        }
        if (log != null) {
            log.close();
        }
    }

    /** Partition messages travel as opaque bytes; {@link PartitionMessageCodec} parses them on the executor. */
    private static final class Opaque implements MessageCodec<ByteBuffer> {
        private final int maxBytes;

        Opaque(int maxBytes) {
            this.maxBytes = maxBytes;
        }

        @Override
        public int type(ByteBuffer message) {
            return 1;
        }

        @Override
        public void encode(ByteBuffer message, WireWriter out) {
            out.putBytes(message);
        }

        @Override
        public ByteBuffer decode(int type, WireReader body) {
            if (type != 1 || body.remaining() > maxBytes + 4) {
                throw new dev.parallax.core.spi.MalformedMessageException("not an S-SMR partition message (type " + type
                        + ", " + body.remaining() + " bytes)");
            }
            ByteBuffer b = body.getBuffer();
            body.end();
            return b;
        }
    }
}
