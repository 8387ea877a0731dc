package dev.parallax.scheduler.ssmr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * S-SMR through the real executor machinery ({@link SsmrDriver} over an {@link SsmrStateMachine}
 * per replica) in one thread, with reliable links and commands run one after the other in one
 * global order: P partitions of R replicas, any {@link SsmrConfig} caching setting. For the
 * services' tests of their {@link CachedReads} (seed 004 (S-SMR) §IV-C): the outcomes with caching
 * must be those without. Each outcome is the reply in hex or {@code "error " + message}. Shipped in
 * smr-scheduler's test-jar. Test code; not thread-safe.
 *
 * @param <M> the partition state machine
 */
public final class DriverSsmr<M extends PartitionedStateMachine> {
    private record Delivery(int partition, PartitionMessage message) {
    }

    private final int partitions;
    private final List<List<M>> machines = new ArrayList<>();
    private final List<List<SsmrDriver>> drivers = new ArrayList<>();
    private final ArrayDeque<Delivery> inFlight = new ArrayDeque<>();
    private final Map<String, String> outcomes = new LinkedHashMap<>();
    private long sequence;
    private long valueBytes;
    private long messages;

    /**
     * @param partitions P
     * @param replicas   R per partition
     * @param factory    a new, empty machine of partition p
     * @param cache      the caching settings of every replica
     */
    public DriverSsmr(int partitions, int replicas, IntFunction<M> factory, SsmrCacheConfig cache) {
        this.partitions = partitions;
        for (int p = 0; p < partitions; p++) {
            List<M> ms = new ArrayList<>();
            List<SsmrDriver> ds = new ArrayList<>();
            for (int r = 0; r < replicas; r++) {
                M m = factory.apply(p);
                int part = p;
                int rep = r;
                SsmrConfig config = SsmrConfig.of(p, partitions).withCache(cache);
                ds.add(new SsmrDriver(config, new SsmrStateMachine(m), new InMemoryRemoteValuesLog(),
                        (q, message) -> {
                            messages++;
                            valueBytes += PartitionMessage.valueBytes(message);
                            inFlight.add(new Delivery(q, message));
                        }, new SsmrDriver.Outcomes() {
                            @Override
                            public void replied(Command command, CommandResult result) {
                                outcomes.put(part + "/" + rep, render(result));
                            }

                            @Override
                            public void skipped(Command command) {
                            }
                        }));
                ms.add(m);
            }
            machines.add(ms);
            drivers.add(ds);
        }
    }

    /** Replica {@code r} of partition {@code p}. */
    public M replica(int p, int r) {
        return machines.get(p).get(r);
    }

    /** Runs {@code command} multicast to {@code involved} to its end; every involved replica's outcome, keyed "p/r". */
    public Map<String, String> run(byte[] command, GroupSet involved) {
        outcomes.clear();
        Command c = Command.of(1, involved, ++sequence, command);
        for (List<SsmrDriver> part : drivers) {
            for (SsmrDriver d : part) {
                d.deliver(c);
            }
        }
        Delivery next;
        while ((next = inFlight.pollFirst()) != null) {
            for (SsmrDriver d : drivers.get(next.partition())) {
                d.receive(next.message());
            }
        }
        for (List<SsmrDriver> part : drivers) {
            for (SsmrDriver d : part) {
                if (!d.core().idle()) {
                    throw new AssertionError("a replica of partition " + d.core().config().partition()
                            + " did not finish " + c.id());
                }
            }
        }
        return new LinkedHashMap<>(outcomes);
    }

    /** The caching counters summed over every replica. */
    public SsmrCacheCounters cacheCounters() {
        long[] t = new long[5];
        int held = 0;
        for (List<SsmrDriver> part : drivers) {
            for (SsmrDriver d : part) {
                SsmrCacheCounters c = d.core().cacheCounters();
                t[0] += c.valuesSent();
                t[1] += c.bottomsSent();
                t[2] += c.misses();
                t[3] += c.malformed();
                t[4] += c.fullAnswered();
                held += c.heldEntries();
            }
        }
        return new SsmrCacheCounters(t[0], t[1], t[2], t[3], t[4], held);
    }

    /** Partition messages sent so far (each to every replica of its target partition). */
    public long messagesSent() {
        return messages;
    }

    /** Bytes of values (plain or cached) in the partition messages sent so far. */
    public long valueBytesSent() {
        return valueBytes;
    }

    /** P. */
    public int partitions() {
        return partitions;
    }

    private static String render(CommandResult result) {
        if (result.isError()) {
            return "error " + result.error();
        }
        ByteBuffer reply = result.reply();
        byte[] b = new byte[reply.remaining()];
        reply.duplicate().get(b);
        return HexFormat.of().formatHex(b);
    }
}
