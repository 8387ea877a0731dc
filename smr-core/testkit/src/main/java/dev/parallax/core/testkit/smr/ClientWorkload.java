package dev.parallax.core.testkit.smr;

import dev.parallax.core.check.KvOp;

import java.util.SplittableRandom;

/**
 * The operations one simulated client issues: random gets, puts and appends over a few keys, until
 * it has issued {@code maxOps} or virtual time reaches {@code stopAt}, whichever comes first. Puts
 * and appends write values unique to the client and operation, so the linearizability checker can
 * tell every write apart. Owned by the simulation thread.
 */
public final class ClientWorkload {
    private static final String[] KEYS = {"a", "b", "c", "d"};

    private final SplittableRandom random;
    private final int client;
    private final long maxOps;
    private final long stopAt;
    private final int putBytes;
    private long issued;

    /**
     * @param maxOps at most this many operations ({@code Long.MAX_VALUE}: no limit)
     * @param stopAt no operation starts at or after this virtual time ({@code Long.MAX_VALUE}: never stops)
     */
    public ClientWorkload(SplittableRandom random, int client, long maxOps, long stopAt) {
        this(random, client, maxOps, stopAt, 0);
    }

    /**
     * @param putBytes a put's value is padded to this many bytes (0: not padded), for runs that
     *                 measure bytes with commands the size of real requests; draws nothing more
     */
    public ClientWorkload(SplittableRandom random, int client, long maxOps, long stopAt, int putBytes) {
        this.putBytes = putBytes;
        this.random = random;
        this.client = client;
        this.maxOps = maxOps;
        this.stopAt = stopAt;
    }

    /** Whether no further operation may start at {@code now}. */
    public boolean exhausted(long now) {
        return issued >= maxOps || now >= stopAt;
    }

    /** The next operation, or {@code null} if {@link #exhausted}. */
    public KvOp next(long now) {
        if (exhausted(now)) {
            return null;
        }
        long k = issued++;
        String key = KEYS[random.nextInt(KEYS.length)];
        int kind = random.nextInt(10);
        if (kind < 4) {
            return KvOp.get(key);
        } else if (kind < 6) {
            String value = client + "." + k;
            return KvOp.put(key, value.length() >= putBytes ? value : value + "x".repeat(putBytes - value.length()));
        }
        return KvOp.append(key, "," + client + "." + k);
    }

    /** Operations handed out so far. */
    public long issued() {
        return issued;
    }
}
