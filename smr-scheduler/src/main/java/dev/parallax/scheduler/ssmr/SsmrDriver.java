package dev.parallax.scheduler.ssmr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.GroupSet;
import dev.parallax.core.WrongPartitions;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;

/**
 * Runs an {@link SsmrCore} against the real things: performs its effects on a
 * {@link PartitionedStateMachine} (through {@link SsmrStateMachine}), a {@link RemoteValuesLog} and
 * {@link PartitionLinks}, feeding the results back until the core has nothing left to do. The
 * {@link SsmrExecutor} runs one on its thread; the simulation runs one per simulated replica.
 *
 * <p>Error mapping: {@link WrongPartitionsException} from execute → the error result
 * {@link WrongPartitions#message} (parsed back by the client); any other RuntimeException from
 * execute → {@link CommandResult#failed}; a RuntimeException from localReads or remoteReads → the
 * command fails with that error and empty values are sent. An {@link Error} propagates (fatal).
 *
 * <p>Not thread-safe: one thread calls every method; none blocks except for what the state
 * machine, the log and the links do.
 */
public final class SsmrDriver {
    /** Where a driver's commands end up. Called on the driver's thread. */
    public interface Outcomes {
        /** {@code command} finished with {@code result} (its remote values are logged). */
        void replied(Command command, CommandResult result);

        /** {@code command} was not for this partition (or a duplicate delivery): no reply. */
        void skipped(Command command);
    }

    private final SsmrCore core;
    private final SsmrConfig config;
    private final SsmrStateMachine adapter;
    private final PartitionedStateMachine machine;
    private final RemoteValuesLog log;
    private final PartitionLinks links;
    private final Outcomes outcomes;
    private final ArrayDeque<SsmrEffect> work = new ArrayDeque<>();
    /** The machine's caching SPI when {@code ssmr.cache} is on, else null. */
    private final CachedReads cached;

    /** A driver with a fresh core. */
    public SsmrDriver(SsmrConfig config, SsmrStateMachine machine, RemoteValuesLog log, PartitionLinks links,
                      Outcomes outcomes) {
        this.config = Objects.requireNonNull(config, "config");
        this.core = new SsmrCore(config, machine.cache());
        this.adapter = Objects.requireNonNull(machine, "machine");
        this.machine = machine.machine();
        this.log = Objects.requireNonNull(log, "log");
        this.links = Objects.requireNonNull(links, "links");
        this.outcomes = Objects.requireNonNull(outcomes, "outcomes");
        this.cached = config.cache().enabled() ? this.machine.cachedReads() : null;
    }

    /** A command delivered in delivery order; a replay if the log holds values for it. */
    public void deliver(Command command) {
        RemoteValues logged = command.groups().contains(config.partition())
                ? log.lookup(command.id()).orElse(null) : null;
        run(core.delivered(command, logged));
    }

    /** A message from another partition. */
    public void receive(PartitionMessage message) {
        run(core.received(message));
    }

    /** Time passes (monotonic nanoseconds). */
    public void tick(long nowNanos) {
        run(core.tick(nowNanos));
    }

    /** The core (for its counters and queue). */
    public SsmrCore core() {
        return core;
    }

    private void run(List<SsmrEffect> effects) {
        work.addAll(effects);
        SsmrEffect e;
        while ((e = work.pollFirst()) != null) {
            perform(e);
        }
    }

    private void perform(SsmrEffect effect) {
        if (effect instanceof SsmrEffect.Send s) {
            links.send(s.partition(), s.message());
        } else if (effect instanceof SsmrEffect.ComputeReads r) {
            computeReads(r.command());
        } else if (effect instanceof SsmrEffect.Execute x) {
            execute(x);
        } else if (effect instanceof SsmrEffect.LogValues l) {
            log.append(adapter.nextFinishIndex(), l.command(), l.values());
        } else if (effect instanceof SsmrEffect.Reply r) {
            outcomes.replied(r.command(), r.result());
        } else if (effect instanceof SsmrEffect.Skip s) {
            outcomes.skipped(s.command());
        }
    }

    private void computeReads(Command command) {
        CommandId id = command.id();
        PartitionView view = new SsmrExecutionContext(config.partition(), config.partitions(), command.groups(),
                null, RemoteValues.NONE);
        ByteBuffer local;
        GroupSet remote;
        CachedExchange.Plan plan = null;
        try {
            plan = plan(command);
            local = plan != null && plan.cached(config.partition()) ? null : machine.localReads(command.payload(), view);
            remote = machine.remoteReads(command.payload(), view);
        } catch (RuntimeException e) {
            work.addAll(core.readsFailed(id, CommandResult.failed(e), plan));
            return;
        }
        work.addAll(core.readsComputed(id, local, remote, plan));
    }

    /**
     * The command's caching plan ({@link CachedExchange} rule 1), or null without caching: the
     * variables it reads at each involved partition, this partition's values of its own, and what
     * it may write here. A command to this partition alone needs only its writes, and only while
     * some other partition may hold a copy of a variable here.
     */
    private CachedExchange.Plan plan(Command command) {
        if (cached == null) {
            return null;
        }
        int self = config.partition();
        int partitions = config.partitions();
        long involved = command.groups().bits();
        if (involved == 1L << self) {
            return adapter.cache().hasMirrors() ? CachedExchange.Plan.writesOnly(cached.writes(command.payload(), self, partitions))
                    : null;
        }
        java.util.TreeMap<Integer, java.util.List<byte[]>> reads = new java.util.TreeMap<>();
        for (int q = 0; q < partitions; q++) {
            if ((involved & (1L << q)) != 0) {
                java.util.List<byte[]> keys = cached.reads(command.payload(), q, partitions);
                if (keys != null) {
                    reads.put(q, keys);
                }
            }
        }
        java.util.List<byte[]> writes = cached.writes(command.payload(), self, partitions);
        java.util.List<ByteBuffer> own = java.util.List.of();
        java.util.List<byte[]> mine = reads.get(self);
        if (mine != null) {
            try {
                java.util.List<ByteBuffer> values = new java.util.ArrayList<>(mine.size());
                for (byte[] k : mine) {
                    values.add(Objects.requireNonNull(cached.value(k), "value").asReadOnlyBuffer());
                }
                own = values;
            } catch (RuntimeException e) {
                own = null; // rule 6: the failed marker goes out
            }
        }
        return new CachedExchange.Plan(reads, own, writes, writes == null);
    }

    private void execute(SsmrEffect.Execute x) {
        Command command = x.command();
        RemoteValues values = x.values();
        if (cached != null && values.size() > 0) {
            values = assembled(command, values);
        }
        ExecutionContext context = new SsmrExecutionContext(config.partition(), config.partitions(),
                command.groups(), x.remoteReads(), values);
        CommandResult result;
        try {
            result = CommandResult.ok(machine.execute(command.payload(), context));
        } catch (WrongPartitionsException e) {
            result = CommandResult.error(WrongPartitions.message(e.needed()));
        } catch (RuntimeException e) {
            result = CommandResult.failed(e);
        }
        work.addAll(core.executed(command.id(), result));
    }

    /** The values execute sees: each cached owner's resolved variables assembled by the SPI. */
    private RemoteValues assembled(Command command, RemoteValues values) {
        java.util.Map<Integer, ByteBuffer> m = new java.util.TreeMap<>();
        for (int q : values.partitions()) {
            ByteBuffer v = values.get(q);
            m.put(q, cached.reads(command.payload(), q, config.partitions()) != null
                    ? CachedExchange.assemble(cached, command.payload(), q, v) : v);
        }
        return RemoteValues.of(m);
    }
}
