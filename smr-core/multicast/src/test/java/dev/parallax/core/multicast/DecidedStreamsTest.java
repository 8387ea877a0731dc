package dev.parallax.core.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.MulticastPosition;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The deterministic merge, without threads: order, filtering, gaps, resume points, history bounds. */
class DecidedStreamsTest {
    private static final int G = MulticastPosition.GLOBAL_STREAM;
    private static final int[] IDS = {0, 1, G};
    private static final int ORIGINS = 3;

    private static final AtomicLong NEXT_SEQUENCE = new AtomicLong();

    private static Envelope message(String text, int... groups) {
        return message(0, NEXT_SEQUENCE.getAndIncrement(), text, groups);
    }

    private static Envelope message(int origin, long sequence, String text, int... groups) {
        ByteBuffer b = Envelope.encodeMessage(origin, sequence, GroupSet.of(groups).bits(),
                ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
        return Envelope.decode(b);
    }

    private static String text(Envelope e) {
        ByteBuffer b = e.payload().duplicate();
        byte[] a = new byte[b.remaining()];
        b.get(a);
        return new String(a, StandardCharsets.UTF_8);
    }

    private static MergeCursor cursor(GroupSet groups) {
        boolean[] merged = new boolean[IDS.length];
        for (int g = groups.first(); g >= 0; g = groups.next(g)) {
            merged[g] = true;
        }
        merged[2] = true;
        return new MergeCursor(groups, merged);
    }

    /** Stream 0: A0..A5; stream 1: B0, a no-op at 1, B2, B3; global: G0..G3 (to {0,1}). */
    private static DecidedStreams filled(int roundLength) throws InterruptedException {
        DecidedStreams s = new DecidedStreams(IDS, ORIGINS, roundLength, 100);
        for (int i = 0; i < 6; i++) {
            s.decided(0, i, message("A" + i, 0));
        }
        s.decided(1, 0, message("B0", 1));
        s.decided(1, 2, message("B2", 1));
        s.decided(1, 3, message("B3", 1));
        for (int i = 0; i < 4; i++) {
            s.decided(2, i, message("G" + i, 0, 1));
        }
        return s;
    }

    private static List<String> take(DecidedStreams s, MergeCursor c, int n, List<MulticastPosition> positions)
            throws InterruptedException {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            DecidedStreams.Delivery d = s.next(c);
            out.add(text(d.envelope()));
            positions.add(d.after());
        }
        return out;
    }

    /** Takes {@code n} deliveries, a read mark's as its runs (each adds its own name). */
    private static List<String> takeWithMarks(DecidedStreams s, MergeCursor c, int n, List<String> out)
            throws InterruptedException {
        for (int i = 0; i < n; i++) {
            DecidedStreams.Delivery d = s.next(c);
            if (d.envelope() == null) {
                d.passed().forEach(Runnable::run);
            } else {
                out.add(text(d.envelope()));
            }
        }
        return out;
    }

    @Test
    void aReadMarkRunsOnceTheMergePassedItsPointInEveryMergedStreamAndNotBefore() throws InterruptedException {
        DecidedStreams s = filled(2);
        MergeCursor both = cursor(GroupSet.of(0, 1));
        s.open(both, MulticastPosition.START);
        List<String> seen = new ArrayList<>();
        s.whenPassed(both, java.util.Map.of(0, 2L, 1, 1L, G, 1L), () -> seen.add("R"));
        takeWithMarks(s, both, 5, seen);
        assertThat(seen).as("after A1 (stream 0 at 2), B0 (stream 1 at 1) and G0 (global at 1), before G1")
                .containsExactly("A0", "A1", "B0", "G0", "R");
        s.whenPassed(both, java.util.Map.of(0, 1L, 7, 99L), () -> seen.add("S"));
        takeWithMarks(s, both, 2, seen);
        assertThat(seen.subList(5, 7)).as("a mark already passed runs at once; a stream the cursor does not merge is ignored")
                .containsExactly("S", "G1");
    }

    @Test
    void theMergeTakesMInstancesOfEachStreamInTurnInIncreasingStreamId() throws InterruptedException {
        DecidedStreams s = filled(2);
        MergeCursor both = cursor(GroupSet.of(0, 1));
        s.open(both, MulticastPosition.START);
        List<MulticastPosition> positions = new ArrayList<>();
        assertThat(take(s, both, 13, positions)).containsExactly(
                "A0", "A1", "B0", "G0", "G1", // round 0 (stream 1's instance 1 is a no-op)
                "A2", "A3", "B2", "B3", "G2", "G3", // round 1
                "A4", "A5"); // round 2, then stream 1's instance 4 is not decided yet
        assertThat(positions.get(4)).isEqualTo(MulticastPosition.START.with(0, 2).with(1, 2).with(G, 2));

        MergeCursor zero = cursor(GroupSet.of(0));
        s.open(zero, MulticastPosition.START);
        assertThat(take(s, zero, 10, new ArrayList<>()))
                .as("a subscriber of group 0 only: the same order, without group 1's messages")
                .containsExactly("A0", "A1", "G0", "G1", "A2", "A3", "G2", "G3", "A4", "A5");
    }

    @Test
    void aCursorOpenedAtAPositionContinuesWithWhatFollowedIt() throws InterruptedException {
        DecidedStreams s = filled(1);
        MergeCursor first = cursor(GroupSet.of(0, 1));
        s.open(first, MulticastPosition.START);
        List<MulticastPosition> positions = new ArrayList<>();
        List<String> all = take(s, first, 12, positions);
        assertThat(all).containsExactly("A0", "B0", "G0", "A1", "G1", "A2", "B2", "G2", "A3", "B3", "G3", "A4");
        for (int k = 0; k < all.size(); k++) {
            MergeCursor resumed = cursor(GroupSet.of(0, 1));
            s.open(resumed, positions.get(k));
            List<MulticastPosition> again = new ArrayList<>();
            assertThat(take(s, resumed, all.size() - 1 - k, again)).as("resumed after " + all.get(k))
                    .isEqualTo(all.subList(k + 1, all.size()));
            assertThat(again).isEqualTo(positions.subList(k + 1, all.size()));
            s.close(resumed);
        }
    }

    @Test
    void historyIsDroppedOnlyWhenNoOpenCursorNeedsItAndOlderPositionsAreRefused() throws InterruptedException {
        DecidedStreams s = new DecidedStreams(IDS, ORIGINS, 1, 2);
        for (int i = 0; i < 5; i++) {
            s.decided(0, i, message("A" + i, 0)); // nobody subscribed: the last two are kept
        }
        MergeCursor late = cursor(GroupSet.of(0));
        assertThatThrownBy(() -> s.open(late, MulticastPosition.START)).isInstanceOf(IllegalArgumentException.class);
        MergeCursor c = cursor(GroupSet.of(0));
        s.open(c, MulticastPosition.START.with(0, 3));
        CountDownLatch written = new CountDownLatch(1);
        Thread writer = new Thread(() -> {
            try {
                s.decided(0, 5, message("A5", 0)); // full, and the cursor still needs A3: blocks
                written.countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        writer.start();
        assertThat(written.await(50, TimeUnit.MILLISECONDS)).as("the writer waits for the subscriber").isFalse();
        s.decided(2, 0, message("G0", 1)); // for group 1 only: consumed, not delivered
        s.decided(2, 3, message("G3", 1)); // instances 1 and 2 are no-ops: the global stream is past 3
        assertThat(text(s.next(c).envelope())).isEqualTo("A3");
        assertThat(written.await(TimeUnit.SECONDS.toMillis(60), TimeUnit.MILLISECONDS)).as("consumed: room again").isTrue();
        writer.join();
    }

    @Test
    void aMessageDecidedTwiceIsDeliveredOnceAtTheSamePositionByEverySubscriber() throws InterruptedException {
        // Two processes see the same decided streams: origin 1's message 7 is decided at stream 0's
        // instances 1 and 4 (resent), origin 2's message 0 at the global stream's 0 and 2.
        List<List<String>> delivered = new ArrayList<>();
        List<List<MulticastPosition>> positions = new ArrayList<>();
        for (int process = 0; process < 2; process++) {
            DecidedStreams s = new DecidedStreams(IDS, ORIGINS, 1, 100);
            MergeCursor c = cursor(GroupSet.of(0, 1));
            s.open(c, MulticastPosition.START);
            List<Boolean> copies = new ArrayList<>();
            copies.add(s.decided(0, 0, message(1, 6, "m6", 0)));
            copies.add(s.decided(0, 1, message(1, 7, "m7", 0)));
            copies.add(s.decided(0, 2, message(1, 9, "m9", 0)));
            copies.add(s.decided(0, 3, message(1, 8, "m8", 0))); // out of order: a resend of a dropped forward
            copies.add(s.decided(0, 4, message(1, 7, "m7", 0))); // a copy
            copies.add(s.decided(0, 5, message(2, 7, "other origin", 0)));
            copies.add(s.decided(1, 0, message(2, 0, "b0", 1)));
            copies.add(s.decided(1, 1, message(2, 1, "b1", 1)));
            copies.add(s.decided(2, 0, message(2, 0, "g0", 0, 1))); // (2, 0) in another stream: new
            copies.add(s.decided(2, 2, message(2, 0, "g0", 0, 1))); // a copy
            copies.add(s.decided(2, 5, message(0, 3, "g5", 0, 1)));
            for (int i = 0; i < 6; i++) {
                copies.add(s.decided(1, 2 + i, message(0, 100 + i, "b" + (2 + i), 1)));
            }
            assertThat(copies).containsExactly(false, false, false, false, true, false, false, false, false, true,
                    false, false, false, false, false, false, false);
            List<MulticastPosition> after = new ArrayList<>();
            delivered.add(take(s, c, 13, after));
            positions.add(after);
        }
        assertThat(delivered.get(0)).containsExactly("m6", "b0", "g0", "m7", "b1", "m9", "b2", "m8", "b3",
                "b4", "other origin", "b5", "g5");
        assertThat(delivered.get(1)).as("the same sequence at another process").isEqualTo(delivered.get(0));
        assertThat(positions.get(1)).as("at the same positions").isEqualTo(positions.get(0));
        assertThat(positions.get(0).get(9)).as("the copy at stream 0's instance 4 is consumed as a gap, round 4 not yet "
                + "of the global stream").isEqualTo(MulticastPosition.START.with(0, 5).with(1, 5).with(G, 4));
    }

    @Test
    void aStreamContinuedFromASnapshotStartsAFreshRecord() throws InterruptedException {
        DecidedStreams s = new DecidedStreams(IDS, ORIGINS, 1, 100);
        assertThat(s.decided(0, 0, message(1, 5, "a", 0))).isFalse();
        assertThat(s.decided(0, 1, message(1, 5, "a", 0))).as("a copy").isTrue();
        MergeCursor c = cursor(GroupSet.of(0));
        s.open(c, MulticastPosition.START.with(0, 10).with(G, 0)); // beyond what was decided: an install
        assertThat(s.decided(0, 5, message(1, 6, "below the snapshot", 0))).isFalse();
        assertThat(s.decided(0, 10, message(1, 5, "a", 0))).as("before the snapshot is unknown here").isFalse();
        s.decided(2, 10, message(2, 0, "g", 0));
        assertThat(text(s.next(c).envelope())).isEqualTo("a");
        assertThat(text(s.next(c).envelope())).isEqualTo("g");
    }
}
