package dev.parallax.core.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The generic scripted cluster and golden files, driven by a toy protocol ({@link ToySequencer.SequencerCore}):
 * member 0 numbers proposals and sends them to everyone; every member persists what it is sent
 * (sync) and decides it.
 */
class ScriptedClusterTest {
    private static final long MS = 1_000_000L;

    private static ScriptedCluster<ToySequencer.SequencerCore, ToySequencer.Order, ToySequencer.Order, String> cluster() {
        return new ScriptedCluster<>(3, ToySequencer.ORDERS, (id, recovered, now) -> new ToySequencer.SequencerCore(id, recovered));
    }

    @Test
    void aScriptReplaysToTheGoldenTrace() {
        ScriptedCluster<ToySequencer.SequencerCore, ToySequencer.Order, ToySequencer.Order, String> c = cluster();
        c.tick(MS);
        assertThat(c.propose(0, "a")).isTrue();
        assertThat(c.propose(1, "not-sequencer")).isFalse();
        assertThat(c.pending()).isEqualTo(3);
        assertThat(c.queued().get(1)).isEqualTo(new ScriptedCluster.Envelope<>(0, 1, new ToySequencer.Order(0, "a")));
        assertThat(c.deliverAll(100)).isEqualTo(3);
        c.isolate(2);
        c.propose(0, "b");
        c.deliverAll(100);
        c.heal();
        c.propose(0, "c");          // 2 missed "b": it asks for a snapshot, then decides "c"
        c.deliverAll(100);
        c.note("compacting 1");
        c.compact(1, 2);
        c.suspect(2, 4);
        c.crashAndRestart(1);
        c.tick(5 * MS);

        assertThat(c.delivered(0)).containsExactly("a", "b", "c");
        assertThat(c.delivered(1)).as("reset by the restart").isEmpty();
        assertThat(c.delivered(2)).containsExactly("a", "c");
        assertThat(c.core(1).next).as("recovered from the log").isEqualTo(3);
        assertThat(c.core(2).suspected).isEqualTo(4);
        assertThat(c.logSize(1)).as("only the checkpoint is left").isEqualTo(1);
        assertThat(c.log(0).nextIndex()).isEqualTo(3);
        assertThat(c.members()).isEqualTo(3);
        assertThat(c.now()).isEqualTo(6 * MS);
        GoldenFiles.assertMatches("scripted-sequencer.txt", c.trace());
    }

    @Test
    void deliveringFromAnEmptyNetworkIsAnError() {
        ScriptedCluster<ToySequencer.SequencerCore, ToySequencer.Order, ToySequencer.Order, String> c = cluster();
        assertThat(c.deliverAll(10)).isZero();
        assertThatThrownBy(c::deliverNext).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new ScriptedCluster<>(0, ToySequencer.ORDERS, (id, r, now) -> new ToySequencer.SequencerCore(id, r)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theSameScriptGivesTheSameTrace() {
        List<List<String>> runs = new ArrayList<>();
        for (int run = 0; run < 2; run++) {
            ScriptedCluster<ToySequencer.SequencerCore, ToySequencer.Order, ToySequencer.Order, String> c = cluster();
            c.propose(0, "x");
            c.deliverAll(10);
            c.tick(3 * MS);
            runs.add(List.copyOf(c.trace()));
        }
        assertThat(runs.get(0)).isEqualTo(runs.get(1)).contains("0 2 decide 0 x", "3000000 1 wake-at 13000000");
    }

    @Test
    void goldenFilesAreWrittenOnUpdateAndCompareLineByLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("nested/trace.txt");
        assertThatThrownBy(() -> GoldenFiles.assertMatches(file, List.of("a"), false))
                .isInstanceOf(AssertionError.class).hasMessageContaining("-Dgolden.update=true");

        GoldenFiles.assertMatches(file, List.of("one", "two"), true);
        assertThat(Files.readString(file)).isEqualTo("one\ntwo\n");
        GoldenFiles.assertMatches(file, List.of("one", "two"), false);

        assertThatThrownBy(() -> GoldenFiles.assertMatches(file, List.of("one", "three"), false))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("at line 2: expected [two] but was [three]")
                .hasMessageContaining("-Dgolden.update=true");
        assertThatThrownBy(() -> GoldenFiles.assertMatches(file, List.of("one"), false))
                .isInstanceOf(AssertionError.class).hasMessageContaining("expected 2 lines but was 1");
        assertThat(Files.readString(file)).as("a failed compare never writes").isEqualTo("one\ntwo\n");
    }

    /** Multicasts each proposal to group 0 and decides it; decides what it receives; records delivery progress. */
    static final class MulticastCore implements dev.parallax.core.protocol.ProtocolCore<String, String, String> {
        final List<Long> progress = new ArrayList<>();
        long next;

        @Override
        public void onMessage(int from, String message, long now, dev.parallax.core.protocol.Effects<String, String, String> out) {
            out.decide(next++, message);
        }

        @Override
        public void onTick(long now, dev.parallax.core.protocol.Effects<String, String, String> out) {
        }

        @Override
        public boolean onProposal(String value, long now, dev.parallax.core.protocol.Effects<String, String, String> out) {
            out.sendDatagram(0, value);
            out.decide(next++, value);
            return true;
        }

        @Override
        public void onDelivered(long nextInstance, long now, dev.parallax.core.protocol.Effects<String, String, String> out) {
            progress.add(nextInstance);
        }

        @Override
        public void onSuspectMember(int member, long epoch, long now, dev.parallax.core.protocol.Effects<String, String, String> out) {
            progress.add(-(epoch * 100 + member) - 1);
        }
    }

    private static final dev.parallax.core.protocol.RecordCodec<String> STRINGS = new dev.parallax.core.protocol.RecordCodec<>() {
        @Override
        public java.nio.ByteBuffer encode(String record) {
            return java.nio.ByteBuffer.wrap(record.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }

        @Override
        public String decode(java.nio.ByteBuffer bytes) {
            return java.nio.charset.StandardCharsets.UTF_8.decode(bytes).toString();
        }
    };

    @Test
    @org.junit.jupiter.api.DisplayName("a multicast queues one datagram envelope per other member (trace mcast); each copy is lost or delivered on its own")
    void multicastsQueueOneDatagramPerOtherMember() {
        ScriptedCluster<MulticastCore, String, String, String> c = new ScriptedCluster<>(3, STRINGS,
                (id, recovered, now) -> new MulticastCore());
        c.propose(0, "a");
        assertThat(c.queued()).containsExactly(new ScriptedCluster.Envelope<>(0, 1, "a", true),
                new ScriptedCluster.Envelope<>(0, 2, "a", true));
        assertThat(c.queued().get(0)).isNotEqualTo(new ScriptedCluster.Envelope<>(0, 1, "a"));
        assertThat(c.trace()).contains("0 0 mcast 0 a");
        c.dropNext();
        c.deliverAll(10);
        assertThat(c.delivered(0)).containsExactly("a");
        assertThat(c.delivered(1)).as("its copy was lost").isEmpty();
        assertThat(c.delivered(2)).containsExactly("a");
        assertThat(c.trace()).contains("0 lost 0->1 a");
    }

    @Test
    @org.junit.jupiter.api.DisplayName("delivery progress reaches a core when the script says, or after each deciding step with autoDelivered")
    void deliveryProgress() {
        ScriptedCluster<MulticastCore, String, String, String> c = new ScriptedCluster<>(3, STRINGS,
                (id, recovered, now) -> new MulticastCore());
        c.propose(0, "a");
        assertThat(c.core(0).progress).as("off by default").isEmpty();
        c.delivered(1, 5);
        assertThat(c.core(1).progress).containsExactly(5L);
        assertThat(c.trace()).contains("0 1 delivered below 5");
        c.autoDelivered(true);
        c.propose(0, "b");
        c.deliverAll(10);
        assertThat(c.core(0).progress).containsExactly(2L);
        assertThat(c.core(2).progress).as("after each of its two decisions").containsExactly(1L, 2L);
        assertThat(c.core(1).progress).as("its decisions stay below 5, told already").containsExactly(5L);
    }

    @Test
    @org.junit.jupiter.api.DisplayName("suspectMember reaches the core and writes a trace line")
    void memberSuspicion() {
        ScriptedCluster<MulticastCore, String, String, String> c = new ScriptedCluster<>(3, STRINGS,
                (id, recovered, now) -> new MulticastCore());
        c.suspectMember(2, 1, 7);
        assertThat(c.core(2).progress).containsExactly(-702L);
        assertThat(c.trace()).containsExactly("0 2 suspect member 1 epoch 7");
    }
}
