package dev.parallax.core.testkit;

import dev.parallax.core.protocol.Effects;
import dev.parallax.core.protocol.ProtocolCore;
import dev.parallax.core.protocol.RecordCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The generic scripted cluster and golden files, driven by a toy protocol ({@link SequencerCore}):
 * member 0 numbers proposals and sends them to everyone; every member persists what it is sent
 * (sync) and decides it.
 */
class ScriptedClusterTest {
    private static final long MS = 1_000_000L;

    /** "Value {@code value} is number {@code instance}": both the message and the record. */
    record Order(long instance, String value) {
    }

    static final RecordCodec<Order> ORDERS = new RecordCodec<>() {
        @Override
        public ByteBuffer encode(Order o) {
            byte[] v = o.value().getBytes(StandardCharsets.UTF_8);
            return ByteBuffer.allocate(8 + v.length).putLong(o.instance()).put(v).flip();
        }

        @Override
        public Order decode(ByteBuffer bytes) {
            ByteBuffer b = bytes.duplicate();
            long instance = b.getLong();
            byte[] v = new byte[b.remaining()];
            b.get(v);
            return new Order(instance, new String(v, StandardCharsets.UTF_8));
        }
    };

    /** The toy core: a fixed sequencer (member 0), three members, a heartbeat timer of 10 ms. */
    static final class SequencerCore implements ProtocolCore<Order, Order, String> {
        final int id;
        long next;
        long compactedBelow;
        long suspected = -1;

        SequencerCore(int id, List<Order> recovered) {
            this.id = id;
            for (Order o : recovered) {
                next = Math.max(next, o.instance() + 1);
            }
        }

        @Override
        public void onMessage(int from, Order o, long now, Effects<Order, Order, String> out) {
            if (o.instance() < next) {
                return;                                     // a duplicate
            }
            if (o.instance() > next) {
                out.snapshotNeeded(from, o.instance());     // a gap: this toy never fills it
            }
            next = o.instance() + 1;
            out.persist(o, true);
            out.decide(o.instance(), o.value());
        }

        @Override
        public void onTick(long now, Effects<Order, Order, String> out) {
            out.wakeAt(now + 10 * MS);
        }

        @Override
        public boolean onProposal(String value, long now, Effects<Order, Order, String> out) {
            if (id != 0) {
                return false;
            }
            Order o = new Order(next, value);
            for (int to = 0; to < 3; to++) {
                out.send(to, o);
            }
            return true;
        }

        @Override
        public void compact(long instance, Effects<Order, Order, String> out) {
            compactedBelow = instance;
            out.persist(new Order(next - 1, "checkpoint"), true);
        }

        @Override
        public void onSuspect(long view, long now, Effects<Order, Order, String> out) {
            suspected = view;
        }
    }

    private static ScriptedCluster<SequencerCore, Order, Order, String> cluster() {
        return new ScriptedCluster<>(3, ORDERS, (id, recovered, now) -> new SequencerCore(id, recovered));
    }

    @Test
    void aScriptReplaysToTheGoldenTrace() {
        ScriptedCluster<SequencerCore, Order, Order, String> c = cluster();
        c.tick(MS);
        assertThat(c.propose(0, "a")).isTrue();
        assertThat(c.propose(1, "not-sequencer")).isFalse();
        assertThat(c.pending()).isEqualTo(3);
        assertThat(c.queued().get(1)).isEqualTo(new ScriptedCluster.Envelope<>(0, 1, new Order(0, "a")));
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
        ScriptedCluster<SequencerCore, Order, Order, String> c = cluster();
        assertThat(c.deliverAll(10)).isZero();
        assertThatThrownBy(c::deliverNext).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new ScriptedCluster<>(0, ORDERS, (id, r, now) -> new SequencerCore(id, r)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theSameScriptGivesTheSameTrace() {
        List<List<String>> runs = new ArrayList<>();
        for (int run = 0; run < 2; run++) {
            ScriptedCluster<SequencerCore, Order, Order, String> c = cluster();
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
}
