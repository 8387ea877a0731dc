package dev.parallax.examples.volery.zk;

import dev.parallax.examples.volery.WatchDrop;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Session ids an outsider cannot predict: the server id in the high byte (ZooKeeper's shape,
 * {@code SessionTrackerImpl.initializeNextSessionId}, so servers of one cluster never hand out the
 * same id), the low 56 bits a keyed pseudorandom permutation of a counter — a four-round Feistel
 * network on two 28-bit halves whose round function is HmacSHA256 under a random key of this server
 * (Luby and Rackoff, "How to construct pseudorandom permutations from pseudorandom functions", 1988:
 * four rounds give a strong pseudorandom permutation). A permutation of a counter never repeats, so
 * ids are unique on a server for as long as it runs; consecutive ids look unrelated, so seeing one's
 * own session id tells nothing about the next one. Between restarts, and between two servers given
 * the same server id (a replica's plain and TLS ports), the keys differ and ids collide with the odds
 * of random 56-bit numbers. Id 0 (a new session in ZooKeeper's handshake) and
 * {@link WatchDrop#ALL_SESSIONS} are never handed out.
 *
 * <p><b>Threads.</b> Not thread-safe: {@link ZkSessions} calls it under its lock. Never blocks.
 */
final class ZkSessionIds {
    private static final int HALF_BITS = 28;
    private static final long HALF_MASK = (1L << HALF_BITS) - 1;
    private static final long LOW_56 = (1L << 56) - 1;
    private static final int ROUNDS = 4;
    private static final String ALGORITHM = "HmacSHA256";

    private final long serverBits;
    private final Mac mac;
    private final byte[] input = new byte[5];
    private long counter;

    /** Ids of server {@code serverId} (0..255) under a fresh random key. */
    ZkSessionIds(int serverId) {
        this.serverBits = (long) serverId << 56;
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        try {
            mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is missing from this JDK", e);
        }
    }

    /** The next id. */
    long next() {
        while (true) {
            long id = serverBits | permute(counter++ & LOW_56);
            if (id != 0 && id != WatchDrop.ALL_SESSIONS) {
                return id;
            }
        }
    }

    private long permute(long value) {
        long left = value >>> HALF_BITS;
        long right = value & HALF_MASK;
        for (int round = 0; round < ROUNDS; round++) {
            long next = left ^ round(round, right);
            left = right;
            right = next;
        }
        return left << HALF_BITS | right;
    }

    private long round(int round, long half) {
        input[0] = (byte) round;
        input[1] = (byte) (half >>> 24);
        input[2] = (byte) (half >>> 16);
        input[3] = (byte) (half >>> 8);
        input[4] = (byte) half;
        byte[] tag = mac.doFinal(input);
        long f = (tag[0] & 0xffL) << 24 | (tag[1] & 0xffL) << 16 | (tag[2] & 0xffL) << 8 | (tag[3] & 0xffL);
        return f & HALF_MASK;
    }
}
