package dev.parallax.bench.systems;

import dev.parallax.core.GroupSet;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.spi.CommandRouter;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import dev.parallax.examples.kv.KvRouter;
import dev.parallax.examples.volery.Create;
import dev.parallax.examples.volery.CreateMode;
import dev.parallax.examples.volery.GetData;
import dev.parallax.examples.volery.SetData;
import dev.parallax.examples.volery.VoleryCommand;
import dev.parallax.examples.volery.VoleryOracle;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The read-mostly multi-partition mixes of the S-SMR caching measurement (seed 004 (S-SMR) §IV-C;
 * docs/results/history.md "S-SMR caching"): an invoker that ignores the load generator's command and sends
 * its own, {@value #READ_PERCENT}% reads that involve every partition and the rest single-partition
 * writes, over a small hot set of variables per connection ({@value #KEYS}), so that reads find
 * their variables cached unless a write changed them since.
 * <ul>
 *   <li>{@link #kv}: MGET of one key of each partition ({@link KvRouter}), SET of one key with a
 *       value as long as the load's command ({@code --size}).</li>
 *   <li>{@link #volery}: getData of a znode multicast to every partition (an over-approximating
 *       oracle: the owner's reply travels to the others, seed 004 §V-B), setData at the owner of
 *       data as long as the load's command; the connection's znodes are created (32 bytes) when it
 *       opens.</li>
 * </ul>
 * Thread-safe (the load calls it from several threads); nothing blocks but the Volery set-up.
 */
final class SsmrMix {
    /** Percent of reads. */
    static final int READ_PERCENT = 90;
    /** Variables per connection. */
    static final int KEYS = 64;
    private static final byte[] VALUE = new byte[32];

    private SsmrMix() {
    }

    /** A value of {@code size} bytes (at least one). */
    private static byte[] value(int size) {
        return new byte[Math.max(1, size)];
    }

    /** The mix's description for the results. */
    static String describe(String read, String write) {
        return READ_PERCENT + "% " + read + " involving every partition, " + (100 - READ_PERCENT) + "% " + write
                + " at one partition (values as long as --size), " + KEYS + " variables per connection, uniformly";
    }

    /** The KV mix over {@code partitions} for connection {@code connection}. */
    static CommandInvoker kv(CommandInvoker partitioned, int partitions, int connection) {
        KvRouter router = new KvRouter(partitions);
        List<List<byte[]>> byPartition = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            byPartition.add(new ArrayList<>());
        }
        for (int i = 0; byPartition.stream().anyMatch(l -> l.size() < KEYS / partitions); i++) {
            byte[] key = ("m" + connection + ":" + i).getBytes(StandardCharsets.US_ASCII);
            List<byte[]> bucket = byPartition.get(router.groupOf(key));
            if (bucket.size() < KEYS / partitions) {
                bucket.add(key);
            }
        }
        return command -> {
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            if (rnd.nextInt(100) < READ_PERCENT) {
                byte[][] keys = new byte[partitions][];
                for (int p = 0; p < partitions; p++) {
                    List<byte[]> bucket = byPartition.get(p);
                    keys[p] = bucket.get(rnd.nextInt(bucket.size()));
                }
                return partitioned.invoke(KvCommand.of(KvOp.MGET, keys).encode());
            }
            List<byte[]> bucket = byPartition.get(rnd.nextInt(partitions));
            return partitioned.invoke(KvCommand.of(KvOp.SET, bucket.get(rnd.nextInt(bucket.size())),
                    value(command.remaining())).encode());
        };
    }

    /** Volery's oracle for the mix: getData to every partition, the rest as {@link VoleryOracle}. */
    static CommandRouter voleryOracle(int partitions) {
        VoleryOracle oracle = new VoleryOracle(partitions);
        return command -> {
            VoleryCommand c = VoleryCommand.decode(command).command();
            return c instanceof GetData ? GroupSet.partition(partitions) : oracle.route(command);
        };
    }

    /**
     * The Volery mix for connection {@code connection}, after creating its znodes (blocks).
     *
     * @throws Exception if a create fails or times out
     */
    static CommandInvoker volery(CommandInvoker partitioned, int connection) throws Exception {
        List<String> paths = new ArrayList<>();
        List<CompletableFuture<ByteBuffer>> created = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            String path = "/m" + connection + "-" + i;
            paths.add(path);
            created.add(partitioned.invoke(ByteBuffer.wrap(new Create(path, VALUE, CreateMode.PERSISTENT, 0).encode())));
        }
        for (CompletableFuture<ByteBuffer> f : created) {
            f.get(60, TimeUnit.SECONDS);
        }
        return command -> {
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            String path = paths.get(rnd.nextInt(paths.size()));
            VoleryCommand c = rnd.nextInt(100) < READ_PERCENT ? new GetData(path)
                    : new SetData(path, value(command.remaining()), -1, 0);
            return partitioned.invoke(ByteBuffer.wrap(c.encode()));
        };
    }
}
