package dev.parallax.examples.volery;

import dev.parallax.core.GroupSet;
import dev.parallax.scheduler.ssmr.ExecutionContext;
import dev.parallax.scheduler.ssmr.PartitionView;
import dev.parallax.scheduler.ssmr.WrongPartitionsException;

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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An ideal S-SMR run of Volery in one thread (seed 004 (S-SMR) §IV Alg. 1 without networks or
 * failures): P partitions of R replicas each; a command, in one global order, reaches the partitions
 * it is multicast to; every replica of every involved partition computes its local reads (checked
 * equal across the partition's replicas and not to change the state), then executes with the values
 * replica 0 of each partition it named sent. Each outcome is the reply bytes in hex, or
 * {@code "WrongPartitions" + needed}, or {@code "error " + exception class} (what the executor would
 * answer). Test code; not thread-safe.
 */
final class VoleryIdealSsmr {
    static final int REPLICAS = 2;

    private final int partitions;
    private final VoleryPartition[][] replicas;

    VoleryIdealSsmr(int partitions) {
        this.partitions = partitions;
        this.replicas = new VoleryPartition[partitions][REPLICAS];
        for (int p = 0; p < partitions; p++) {
            for (int r = 0; r < REPLICAS; r++) {
                replicas[p][r] = new VoleryPartition();
            }
        }
    }

    int partitions() {
        return partitions;
    }

    VoleryPartition replica(int partition, int replica) {
        return replicas[partition][replica];
    }

    /** Runs {@code command} multicast to {@code involved}; the outcome of every (partition, replica). */
    Map<String, String> run(byte[] command, GroupSet involved) {
        Map<Integer, ByteBuffer> sent = new LinkedHashMap<>();
        Map<String, GroupSet> named = new LinkedHashMap<>();
        for (int p = involved.first(); p >= 0; p = involved.next(p)) {
            View view = new View(p, partitions, involved);
            for (int r = 0; r < REPLICAS; r++) {
                long before = replicas[p][r].digest();
                ByteBuffer bytes = ByteBuffer.wrap(command);
                ByteBuffer local = replicas[p][r].localReads(bytes, view);
                GroupSet remote = replicas[p][r].remoteReads(bytes, view);
                assertThat(bytes.position()).isZero();
                assertThat(replicas[p][r].digest()).as("local reads change nothing").isEqualTo(before);
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
            for (int r = 0; r < REPLICAS; r++) {
                Context context = new Context(new View(p, partitions, involved), named.get(p + "/" + r), sent);
                VoleryPartition replica = replicas[p][r];
                long before = replica.digest();
                String outcome;
                try {
                    ByteBuffer reply = replica.execute(ByteBuffer.wrap(command), context);
                    byte[] b = new byte[reply.remaining()];
                    reply.get(b);
                    outcome = HexFormat.of().formatHex(b);
                } catch (WrongPartitionsException e) {
                    assertThat(replica.digest()).as("a wrong-partition command changes nothing").isEqualTo(before);
                    outcome = "WrongPartitions" + e.needed();
                } catch (RuntimeException e) {
                    assertThat(replica.digest()).as("a failed command changes nothing").isEqualTo(before);
                    outcome = "error " + e.getClass().getSimpleName();
                }
                outcomes.put(p + "/" + r, outcome);
            }
        }
        return outcomes;
    }

    /** Replaces replica {@code r} of every partition with a copy restored from replica 0's snapshot. */
    void restoreFromSnapshots(int r) {
        for (int p = 0; p < partitions; p++) {
            replicas[p][r] = copyOf(replicas[p][0]);
        }
    }

    /** The digests of every replica, partition by partition. */
    List<List<Long>> digests() {
        List<List<Long>> all = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            List<Long> partition = new ArrayList<>();
            for (int r = 0; r < REPLICAS; r++) {
                partition.add(replicas[p][r].digest());
            }
            all.add(partition);
        }
        return all;
    }

    /** A partition restored from {@code source}'s snapshot, written and read through channels. */
    static VoleryPartition copyOf(VoleryPartition source) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            source.snapshot(Channels.newChannel(out));
            VoleryPartition copy = new VoleryPartition();
            copy.restore(Channels.newChannel(new ByteArrayInputStream(out.toByteArray())));
            return copy;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    record View(int partition, int partitions, GroupSet involved) implements PartitionView {
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
