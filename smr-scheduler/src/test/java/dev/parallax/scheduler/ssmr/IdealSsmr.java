package dev.parallax.scheduler.ssmr;

import dev.parallax.core.GroupSet;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.ToLongFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An ideal S-SMR run of any {@link PartitionedStateMachine} in one thread (seed 004 (S-SMR) §IV
 * Alg. 1 without networks or failures): P partitions of R replicas each; a command, in one global
 * order, reaches the partitions it is multicast to; every replica of every involved partition
 * computes its local reads (checked equal across the partition's replicas and not to change the
 * state), then executes with the values replica 0 of each partition it named sent. Each outcome is
 * the reply bytes in hex, or {@code "WrongPartitions" + needed}, or
 * {@code "error " + exception class + ": " + message} (what the executor would answer). Shipped in
 * smr-scheduler's test-jar for the services' tests. Test code; not thread-safe.
 *
 * @param <M> the partition state machine
 */
public final class IdealSsmr<M extends PartitionedStateMachine> {
    private final int partitions;
    private final int replicasPerPartition;
    private final IntFunction<M> factory;
    private final ToLongFunction<M> digest;
    private final List<List<M>> replicas = new ArrayList<>();

    /**
     * @param partitions           P
     * @param replicasPerPartition R
     * @param factory              a new, empty machine of partition p
     * @param digest               a machine's state digest (equal for equal state)
     */
    public IdealSsmr(int partitions, int replicasPerPartition, IntFunction<M> factory, ToLongFunction<M> digest) {
        this.partitions = partitions;
        this.replicasPerPartition = replicasPerPartition;
        this.factory = factory;
        this.digest = digest;
        for (int p = 0; p < partitions; p++) {
            List<M> partition = new ArrayList<>();
            for (int r = 0; r < replicasPerPartition; r++) {
                partition.add(factory.apply(p));
            }
            replicas.add(partition);
        }
    }

    /** P. */
    public int partitions() {
        return partitions;
    }

    /** Replica {@code replica} of {@code partition}. */
    public M replica(int partition, int replica) {
        return replicas.get(partition).get(replica);
    }

    /** Runs {@code command} multicast to {@code involved}; the outcome of every (partition, replica), keyed "p/r". */
    public Map<String, String> run(byte[] command, GroupSet involved) {
        Map<Integer, ByteBuffer> sent = new LinkedHashMap<>();
        Map<String, GroupSet> named = new LinkedHashMap<>();
        for (int p = involved.first(); p >= 0; p = involved.next(p)) {
            View view = new View(p, partitions, involved);
            for (int r = 0; r < replicasPerPartition; r++) {
                M m = replica(p, r);
                long before = digest.applyAsLong(m);
                ByteBuffer bytes = ByteBuffer.wrap(command);
                ByteBuffer local = m.localReads(bytes, view);
                GroupSet remote = m.remoteReads(bytes, view);
                assertThat(bytes.position()).isZero();
                assertThat(digest.applyAsLong(m)).as("local reads change nothing").isEqualTo(before);
                if (remote != null) {
                    assertThat(remote.contains(p)).as("remote reads exclude the partition itself").isFalse();
                    assertThat(remote.bits() & ~involved.bits()).as("remote reads are involved").isZero();
                }
                if (r == 0) {
                    sent.put(p, local);
                } else {
                    assertThat(local).as("replicas of partition %d send the same values", p).isEqualTo(sent.get(p));
                }
                named.put(p + "/" + r, remote);
            }
        }
        Map<String, String> outcomes = new LinkedHashMap<>();
        for (int p = involved.first(); p >= 0; p = involved.next(p)) {
            for (int r = 0; r < replicasPerPartition; r++) {
                Context context = new Context(new View(p, partitions, involved), named.get(p + "/" + r), sent);
                M m = replica(p, r);
                long before = digest.applyAsLong(m);
                String outcome;
                try {
                    ByteBuffer reply = m.execute(ByteBuffer.wrap(command), context);
                    byte[] b = new byte[reply.remaining()];
                    reply.get(b);
                    outcome = HexFormat.of().formatHex(b);
                } catch (WrongPartitionsException e) {
                    assertThat(digest.applyAsLong(m)).as("a wrong-partition command changes nothing").isEqualTo(before);
                    outcome = "WrongPartitions" + e.needed();
                } catch (RuntimeException e) {
                    assertThat(digest.applyAsLong(m)).as("a failed command changes nothing").isEqualTo(before);
                    outcome = error(e);
                }
                outcomes.put(p + "/" + r, outcome);
            }
        }
        return outcomes;
    }

    /** The outcome string of an execution that threw {@code e}. */
    public static String error(RuntimeException e) {
        return "error " + e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    /** Replaces replica {@code r} of every partition with a copy restored from replica 0's snapshot. */
    public void restoreFromSnapshots(int r) {
        for (int p = 0; p < partitions; p++) {
            replicas.get(p).set(r, copyOf(replica(p, 0), factory.apply(p)));
        }
    }

    /** The digests of every replica, partition by partition. */
    public List<List<Long>> digests() {
        List<List<Long>> all = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            List<Long> partition = new ArrayList<>();
            for (int r = 0; r < replicasPerPartition; r++) {
                partition.add(digest.applyAsLong(replica(p, r)));
            }
            all.add(partition);
        }
        return all;
    }

    /** {@code empty} restored from {@code source}'s snapshot, written and read through channels. */
    public static <M extends PartitionedStateMachine> M copyOf(M source, M empty) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            source.snapshot(Channels.newChannel(out));
            empty.restore(Channels.newChannel(new ByteArrayInputStream(out.toByteArray())));
            return empty;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A partition view. */
    public record View(int partition, int partitions, GroupSet involved) implements PartitionView {
    }

    /** The values of exactly the partitions {@code named}; require as the executor's contract says. */
    private record Context(View view, GroupSet named, Map<Integer, ByteBuffer> sent) implements ExecutionContext {
        @Override
        public int partition() {
            return view.partition();
        }

        @Override
        public int partitions() {
            return view.partitions();
        }

        @Override
        public GroupSet involved() {
            return view.involved();
        }

        @Override
        public ByteBuffer valuesOf(int partition) {
            if (named == null || !named.contains(partition)) {
                throw new IllegalArgumentException("partition " + partition + " was not named by remoteReads");
            }
            return sent.get(partition).asReadOnlyBuffer();
        }

        @Override
        public void require(GroupSet needed) {
            if ((needed.bits() & ~view.involved().bits()) != 0) {
                throw new WrongPartitionsException(GroupSet.ofBits(needed.bits() | view.involved().bits()));
            }
        }
    }
}
