package dev.parallax.core.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.testkit.multicast.LogicalMerge;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The Multi-Ring simulation's single-threaded merge ({@link LogicalMerge}, test code) against the
 * real one ({@link DecidedStreams} with {@link Numbering#LOGICAL}, whose reader blocks and so cannot
 * run on the simulator's thread): on random decided streams — messages to random groups, copies of
 * earlier messages, NOOP instances, skips ahead and stale ones — with random M and subscriptions,
 * both deliver the same sequence (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1 task 4,
 * with logical numbering). Each run ends every stream with a skip far ahead and a last message on the global
 * stream beyond every other index, so that the real merge delivers everything and then that last
 * message, which both must end with.
 */
class MultiRingMergeCrossCheckTest {
    private static final int G = MulticastPosition.GLOBAL_STREAM;
    private static final long END = 1_000_000;

    @Test
    @DisplayName("LogicalMerge delivers what DecidedStreams (Numbering.LOGICAL) delivers, on 500 random stream sets")
    void sameSequenceAsDecidedStreams() {
        int compared = 0;
        for (long seed = 1; seed <= 500; seed++) {
            compared += compare(seed);
        }
        assertThat(compared).as("messages compared").isGreaterThan(10_000);
    }

    /** One random stream set; returns how many deliveries were compared. */
    private static int compare(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int k = 2 + r.nextInt(3);
        int[] ids = new int[k + 1];
        for (int i = 0; i < k; i++) {
            ids[i] = i;
        }
        ids[k] = G;
        int m = 1 + r.nextInt(4);
        long subscription = 1 + r.nextLong((1L << k) - 1);
        boolean[] merged = new boolean[k + 1];
        int[] streamOf = new int[k + 1];
        int streams = 0;
        for (int i = 0; i <= k; i++) {
            merged[i] = i == k || (subscription & (1L << i)) != 0;
            streamOf[i] = merged[i] ? streams++ : -1;
        }
        DecidedStreams real = new DecidedStreams(ids, 4, m, 1 << 20, Numbering.LOGICAL);
        MergeCursor cursor = new MergeCursor(GroupSet.ofBits(subscription), merged);
        real.open(cursor, MulticastPosition.START);
        LogicalMerge reference = new LogicalMerge(streams, m, subscription, LogicalMerge.Flaw.NONE);
        long[] instance = new long[k + 1];
        long[] logical = new long[k + 1];
        List<List<long[]>> sent = new ArrayList<>();
        for (int i = 0; i <= k; i++) {
            sent.add(new ArrayList<>());
        }
        int[] nextSequence = new int[4];
        int values = 50 + r.nextInt(150);
        long[] last = {0, -1, subscription};
        try {
            for (int v = 0; v < values; v++) {
                int i = r.nextInt(k + 1);
                double what = r.nextDouble();
                if (what < 0.1) {
                    instance[i]++; // a NOOP: an instance that delivers nothing
                    if (merged[i]) {
                        reference.noop(streamOf[i]);
                    }
                } else if (what < 0.3) {
                    long upTo = Math.max(0, logical[i] + r.nextInt(12) - 4); // ahead, or stale
                    feedSkip(real, reference, i, streamOf[i], instance[i]++, upTo);
                    logical[i] = Math.max(logical[i], upTo);
                } else {
                    long[] msg;
                    if (what < 0.35 && !sent.get(i).isEmpty()) {
                        msg = sent.get(i).get(r.nextInt(sent.get(i).size())); // a copy decided again
                    } else {
                        int origin = r.nextInt(4);
                        long bits = i == k ? groupsOfSeveral(r, k) : 1L << i;
                        msg = new long[] {origin, nextSequence[origin]++, bits};
                        sent.get(i).add(msg);
                    }
                    feedMessage(real, reference, i, streamOf[i], instance[i]++, msg);
                    logical[i]++;
                }
            }
            for (int i = 0; i < k; i++) {
                feedSkip(real, reference, i, streamOf[i], instance[i]++, END + 2L * m);
            }
            feedSkip(real, reference, k, streamOf[k], instance[k]++, END);
            last[1] = nextSequence[0]++;
            feedMessage(real, reference, k, streamOf[k], instance[k], last);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        List<Long> expected = new ArrayList<>();
        for (long[] d = reference.poll(); d != null; d = reference.poll()) {
            expected.add(d[0]);
        }
        assertThat(expected).as("seed %d: the reference ends with the last message", seed).endsWith(idOf(last));
        List<Long> actual = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            List<Long> out = new ArrayList<>();
            for (int n = 0; n < expected.size(); n++) {
                DecidedStreams.Delivery d = real.next(cursor);
                out.add(idOf(d.envelope().origin(), d.envelope().sequence()));
            }
            return out;
        }, "seed " + seed + ": DecidedStreams delivered fewer messages than LogicalMerge");
        assertThat(actual).as("seed %d (M=%d, groups %s)", seed, m, Long.toBinaryString(subscription))
                .containsExactlyElementsOf(expected);
        real.close();
        return expected.size();
    }

    private static long idOf(long[] msg) {
        return idOf((int) msg[0], msg[1]);
    }

    private static long idOf(int origin, long sequence) {
        return origin * 1_000_000_000L + sequence;
    }

    private static long groupsOfSeveral(SplittableRandom r, int k) {
        long bits = 0;
        while (Long.bitCount(bits) < 2) {
            bits |= 1L << r.nextInt(k);
        }
        return bits;
    }

    private static void feedSkip(DecidedStreams real, LogicalMerge reference, int i, int stream, long instance, long upTo)
            throws InterruptedException {
        real.decided(i, instance, Envelope.decode(StreamMulticast.skipValue(upTo)));
        if (stream >= 0) {
            reference.skip(stream, upTo);
        }
    }

    private static void feedMessage(DecidedStreams real, LogicalMerge reference, int i, int stream, long instance,
                                    long[] msg) throws InterruptedException {
        real.decided(i, instance, Envelope.decode(Envelope.encodeMessage((int) msg[0], msg[1], msg[2],
                ByteBuffer.allocate(0))));
        if (stream >= 0) {
            reference.message(stream, idOf(msg), msg[2]);
        }
    }
}
