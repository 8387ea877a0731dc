package dev.parallax.core.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.MulticastPosition;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The merge over logically numbered streams (Multi-Ring Paxos' logical numbering), without threads:
 * messages +1, skip-to sets the next index, stale skips are harmless, positions name the resume
 * instance, a skip is consumed whole, and a position reported anywhere restarts the merge and the
 * numbering exactly (and a position inside a skip's range, as a hand-made one, too).
 */
class LogicalNumberingTest {
    private static final int G = MulticastPosition.GLOBAL_STREAM;
    private static final int[] IDS = {0, 1, G};

    private static Envelope message(long sequence, String text, int... groups) {
        return Envelope.decode(Envelope.encodeMessage(0, sequence, GroupSet.of(groups).bits(),
                ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8))));
    }

    private static Envelope skipTo(long upTo) {
        return Envelope.decode(StreamMulticast.skipValue(upTo));
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

    /**
     * Ring 0: A0 (inst 0), A1 (inst 2; 1 was a NOOP), A2 (3), A3 (4), A4 (5). Ring 1: skip to 3
     * (inst 0), B3 (1), stale skip to 2 (2), skip to 6 (3). Global ring: skip to 4 (0), G4 (1).
     */
    private static void fill(DecidedStreams s, boolean withGlobalMessage) throws InterruptedException {
        s.decided(0, 0, message(0, "A0", 0));
        s.decided(0, 2, message(1, "A1", 0));
        s.decided(0, 3, message(2, "A2", 0));
        s.decided(0, 4, message(3, "A3", 0));
        s.decided(0, 5, message(4, "A4", 0));
        s.decided(1, 0, skipTo(3));
        s.decided(1, 1, message(10, "B3", 1));
        s.decided(1, 2, skipTo(2));
        s.decided(1, 3, skipTo(6));
        s.decided(2, 0, skipTo(4));
        if (withGlobalMessage) {
            s.decided(2, 1, message(20, "G4", 0, 1));
        }
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

    @Test
    void theMergeRunsOnLogicalIndicesAndPositionsNameTheResumeInstance() throws InterruptedException {
        DecidedStreams s = new DecidedStreams(IDS, 1, 1, 100, Numbering.LOGICAL);
        fill(s, true);
        MergeCursor c = cursor(GroupSet.of(0, 1));
        s.open(c, MulticastPosition.START);
        List<MulticastPosition> positions = new ArrayList<>();
        assertThat(take(s, c, 6, positions)).as("by (logical index, stream id): A_k at k, B3 at 3, G4 at 4")
                .containsExactly("A0", "A1", "A2", "A3", "B3", "A4");
        assertThat(positions.get(4)).as("after B3: ring 1 at index 4, resuming at instance 2 (the stale skip); the "
                        + "global ring's skip to 4 consumed whole")
                .isEqualTo(MulticastPosition.START.with(0, 4).with(MulticastPosition.resumeStream(0), 5)
                        .with(1, 4).with(MulticastPosition.resumeStream(1), 2)
                        .with(G, 4).with(MulticastPosition.resumeStream(G), 1));
        assertThat(text(s.next(c).envelope())).isEqualTo("G4");
    }

    @Test
    void aPositionRestartsTheNumberingExactlyElsewhere() throws InterruptedException {
        DecidedStreams first = new DecidedStreams(IDS, 1, 1, 100, Numbering.LOGICAL);
        fill(first, true);
        MergeCursor c = cursor(GroupSet.of(0, 1));
        first.open(c, MulticastPosition.START);
        List<MulticastPosition> positions = new ArrayList<>();
        List<String> all = take(first, c, 7, positions);
        MulticastPosition afterA2 = positions.get(2);
        assertThat(afterA2.next(1)).as("ring 1 consumed its first skip whole").isEqualTo(3);
        assertThat(afterA2.next(MulticastPosition.resumeStream(1))).as("and resumes after it").isEqualTo(1);

        // Another process installs that position before it saw anything: its broadcasts are told to
        // resume at the named instances, and it numbers from there as the first one did.
        DecidedStreams second = new DecidedStreams(IDS, 1, 1, 100, Numbering.LOGICAL);
        MergeCursor resumed = cursor(GroupSet.of(0, 1));
        List<DecidedStreams.StreamPoint> installs = second.open(resumed, afterA2);
        assertThat(installs).as("(stream index, logical next, resume instance)").containsExactly(
                new DecidedStreams.StreamPoint(0, 3, 4), new DecidedStreams.StreamPoint(1, 3, 1),
                new DecidedStreams.StreamPoint(2, 4, 1));
        fill(second, true); // ring 0's instances below 4 are before the resume instance: ignored
        List<MulticastPosition> again = new ArrayList<>();
        assertThat(take(second, resumed, 4, again)).isEqualTo(all.subList(3, 7));
        assertThat(again).isEqualTo(positions.subList(3, 7));
    }

    @Test
    void aRingWithoutTrafficHoldsTheMergeUntilItsSkipArrives() throws InterruptedException {
        DecidedStreams s = new DecidedStreams(IDS, 1, 1, 100, Numbering.LOGICAL);
        s.decided(0, 0, message(0, "A0", 0));
        s.decided(0, 1, message(1, "A1", 0));
        s.decided(2, 0, skipTo(10));
        MergeCursor c = cursor(GroupSet.of(0, 1));
        s.open(c, MulticastPosition.START);
        assertThat(text(s.next(c).envelope())).isEqualTo("A0");
        Thread reader = new Thread(() -> {
            try {
                s.next(c);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        reader.start();
        reader.join(200);
        assertThat(reader.isAlive()).as("ring 1 decided nothing: A1 waits (no-progress, not a timing bound)").isTrue();
        s.decided(1, 0, skipTo(5));
        reader.join(60_000);
        assertThat(reader.isAlive()).as("ring 1's skip releases A1").isFalse();
        assertThat(c.next[0]).isEqualTo(2);
    }

    @Test
    void aPositionInsideASkipsRangeReplaysTheSkip() throws InterruptedException {
        DecidedStreams s = new DecidedStreams(IDS, 1, 1, 100, Numbering.LOGICAL);
        MergeCursor c = cursor(GroupSet.of(1));
        MulticastPosition inside = MulticastPosition.START.with(1, 4).with(MulticastPosition.resumeStream(1), 3)
                .with(G, 4).with(MulticastPosition.resumeStream(G), 1);
        assertThat(s.open(c, inside)).containsExactly(new DecidedStreams.StreamPoint(1, 4, 3),
                new DecidedStreams.StreamPoint(2, 4, 1));
        fill(s, true);
        s.decided(1, 4, message(11, "B6", 1));
        s.decided(2, 2, skipTo(10));
        assertThat(text(s.next(c).envelope())).as("G4 at (4, global) before B6 at (6, ring 1)").isEqualTo("G4");
        DecidedStreams.Delivery d = s.next(c);
        assertThat(text(d.envelope())).isEqualTo("B6");
        assertThat(d.after()).isEqualTo(MulticastPosition.START.with(1, 7).with(MulticastPosition.resumeStream(1), 5)
                .with(G, 10).with(MulticastPosition.resumeStream(G), 3));
    }

    @Test
    void aSkipToAnEpochScaleTargetIsConsumedAtOnce() throws InterruptedException {
        long target = 1_700_000_000_000_000L; // λ = 1e6/s times an epoch in milliseconds / 1000
        DecidedStreams s = new DecidedStreams(IDS, 1, 1, 100, Numbering.LOGICAL);
        s.decided(0, 0, skipTo(target));
        s.decided(0, 1, message(0, "A", 0));
        s.decided(1, 0, skipTo(target + 5));
        s.decided(2, 0, skipTo(target + 1));
        MergeCursor c = cursor(GroupSet.of(0, 1));
        s.open(c, MulticastPosition.START);
        DecidedStreams.Delivery d = s.next(c);
        assertThat(text(d.envelope())).isEqualTo("A");
        assertThat(d.after().next(0)).isEqualTo(target + 1);
    }

    @Test
    @org.junit.jupiter.api.DisplayName("a position at the same logical next but a later resume instance (only NOOPs and stale skips "
            + "between) still moves the stream's broadcast there: logical indices alone would leave a ring waiting for "
            + "instances its peers compacted")
    void aLaterResumeInstanceAtTheSameLogicalNextIsInstalled() throws InterruptedException {
        DecidedStreams s = new DecidedStreams(IDS, 1, 1, 100, Numbering.LOGICAL);
        MergeCursor c = cursor(GroupSet.of(0, 1));
        s.open(c, MulticastPosition.START);
        s.decided(1, 0, skipTo(5)); // here: ring 1 decided up to instance 0, logical next 5
        // At a peer ring 1 went on with instances 1..3 that number nothing (NOOPs, stale skips) and
        // its snapshot says: logical next 5, resume at instance 4.
        MulticastPosition peer = MulticastPosition.START.with(1, 5).with(MulticastPosition.resumeStream(1), 4);
        List<DecidedStreams.StreamPoint> installs = s.jump(c, peer);
        assertThat(installs).as("ring 1 must skip to instance 4").contains(new DecidedStreams.StreamPoint(1, 5, 4));
        s.decided(1, 4, message(30, "B5", 1)); // instance 4 numbers 5 as at the peer
        s.decided(0, 0, skipTo(7));
        s.decided(2, 0, skipTo(7));
        assertThat(text(s.next(c).envelope())).isEqualTo("B5");
    }

    /**
     * Ring 0 at the process that snapshots: A0 = (origin 0, seq 5) at instance 0, A1 at 1, a late
     * copy of (0, 5) (its origin resent it) at 2, A2 at 3; the other rings skip far ahead.
     */
    private static void fillWithLateCopy(DecidedStreams s, long fromInstance) throws InterruptedException {
        Envelope[] ring0 = {message(5, "A0", 0), message(6, "A1", 0), message(5, "A0", 0), message(7, "A2", 0)};
        for (int i = (int) fromInstance; i < ring0.length; i++) {
            s.decided(0, i, ring0[i]);
        }
        s.decided(1, 0, skipTo(100));
        s.decided(2, 0, skipTo(100));
    }

    @Test
    void aLateCopyAfterASnapshotPointIsDroppedByAProcessResumingThere() throws InterruptedException {
        DecidedStreams here = new DecidedStreams(IDS, 1, 1, 100, Numbering.LOGICAL);
        MergeCursor c = cursor(GroupSet.of(0));
        here.open(c, MulticastPosition.START);
        fillWithLateCopy(here, 0);
        DecidedStreams.Delivery a0 = here.next(c);
        assertThat(text(a0.envelope())).isEqualTo("A0");
        // The snapshot taken right after A0 stores the position with the duplicate record.
        MulticastPosition snapshot = here.resumePosition(c, a0.after());
        assertThat(snapshot.next(0)).isEqualTo(a0.after().next(0));
        assertThat(snapshot.record()).isNotEmpty();
        assertThat(text(here.next(c).envelope())).isEqualTo("A1");
        DecidedStreams.Delivery hereA2 = here.next(c);
        assertThat(text(hereA2.envelope())).as("the copy is dropped here").isEqualTo("A2");

        // A process restarting from that snapshot: ring 0 resumes at instance 1 and sees the copy.
        DecidedStreams restarted = new DecidedStreams(IDS, 1, 1, 100, Numbering.LOGICAL);
        MergeCursor r = cursor(GroupSet.of(0));
        assertThat(restarted.open(r, snapshot)).contains(new DecidedStreams.StreamPoint(0, 1, 1));
        fillWithLateCopy(restarted, 1);
        DecidedStreams.Delivery a1 = restarted.next(r);
        assertThat(text(a1.envelope())).isEqualTo("A1");
        DecidedStreams.Delivery a2 = restarted.next(r);
        assertThat(text(a2.envelope())).as("the copy is dropped there too, at the same position").isEqualTo("A2");
        assertThat(a2.after()).isEqualTo(hereA2.after());

        // Negative control: the bare position (no record) cannot know A0 came before: the copy is delivered.
        DecidedStreams bare = new DecidedStreams(IDS, 1, 1, 100, Numbering.LOGICAL);
        MergeCursor b = cursor(GroupSet.of(0));
        bare.open(b, a0.after());
        fillWithLateCopy(bare, 1);
        assertThat(text(bare.next(b).envelope())).isEqualTo("A1");
        assertThat(text(bare.next(b).envelope())).isEqualTo("A0");
    }
}
