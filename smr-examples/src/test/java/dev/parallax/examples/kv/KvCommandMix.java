package dev.parallax.examples.kv;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Seeded random mixes of every KV command over a fixed key space, for tests that compare stores
 * (partitioned against one partition, P-SMR against sequential execution). Single-threaded.
 */
final class KvCommandMix {
    private final Random random;
    private final int keys;

    /** Commands over {@code keys} keys {@code k0..k<keys-1>}, drawn from {@code seed}. */
    KvCommandMix(long seed, int keys) {
        this.random = new Random(seed);
        this.keys = keys;
    }

    /** The next {@code count} encoded commands. */
    List<byte[]> next(int count) {
        List<byte[]> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            ByteBuffer encoded = next().encode();
            byte[] bytes = new byte[encoded.remaining()];
            encoded.get(bytes);
            out.add(bytes);
        }
        return out;
    }

    /** One command: mostly single-key writes and reads (STRLEN among them), some multi-key ones, rarely DBSIZE and FLUSHALL. */
    KvCommand next() {
        int r = random.nextInt(100);
        if (r < 22) {
            return KvCommand.of(KvOp.SET, key(), value());
        } else if (r < 40) {
            return KvCommand.of(KvOp.GET, key());
        } else if (r < 55) {
            return KvCommand.of(KvOp.INCR, key());
        } else if (r < 63) {
            return KvCommand.of(KvOp.DEL, keys(1 + random.nextInt(3)));
        } else if (r < 73) {
            int pairs = 1 + random.nextInt(3);
            byte[][] args = new byte[2 * pairs][];
            for (int i = 0; i < pairs; i++) {
                args[2 * i] = key();
                args[2 * i + 1] = value();
            }
            return KvCommand.of(KvOp.MSET, args);
        } else if (r < 83) {
            return KvCommand.of(KvOp.MGET, keys(1 + random.nextInt(4)));
        } else if (r < 88) {
            return KvCommand.of(KvOp.EXISTS, keys(1 + random.nextInt(3)));
        } else if (r < 93) {
            return KvCommand.of(random.nextBoolean() ? KvOp.SET_IF_ABSENT : KvOp.SET_IF_PRESENT, key(), value());
        } else if (r < 98) {
            return KvCommand.of(KvOp.DBSIZE);
        } else if (r < 99 && random.nextInt(3) == 0) {
            return KvCommand.of(KvOp.FLUSHALL);
        }
        return KvCommand.of(random.nextBoolean() ? KvOp.STRLEN : KvOp.GET, key());
    }

    private byte[] key() {
        return ("k" + random.nextInt(keys)).getBytes(StandardCharsets.US_ASCII);
    }

    private byte[][] keys(int n) {
        byte[][] out = new byte[n][];
        for (int i = 0; i < n; i++) {
            out[i] = key();
        }
        return out;
    }

    private byte[] value() {
        int r = random.nextInt(10);
        String v = r < 6 ? Integer.toString(random.nextInt(1000)) : r < 9 ? "v" + random.nextInt(100) : "";
        return v.getBytes(StandardCharsets.US_ASCII);
    }
}
