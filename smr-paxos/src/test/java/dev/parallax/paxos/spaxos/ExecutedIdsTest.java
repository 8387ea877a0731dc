package dev.parallax.paxos.spaxos;

import dev.parallax.core.seq.SequenceWindow;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExecutedIdsTest {

    @Test
    @DisplayName("an id decided twice executes once (seed 002 (S-Paxos) §IV-B b, footnote 5)")
    void firstAndDuplicate() {
        ExecutedIds e = new ExecutedIds();
        BatchId a = new BatchId(0, 7, 1);
        assertThat(e.executed(a)).isFalse();
        assertThat(e.firstExecution(a)).isTrue();
        assertThat(e.executed(a)).isTrue();
        assertThat(e.firstExecution(a)).isFalse();
        assertThat(e.firstExecution(new BatchId(0, 7, 3))).as("out of sn order").isTrue();
        assertThat(e.firstExecution(new BatchId(0, 7, 2))).isTrue();
        assertThat(e.executedBelow(0, 7)).isEqualTo(4);
        assertThat(e.firstExecution(new BatchId(1, 7, 1))).as("origins are apart").isTrue();
        assertThatThrownBy(() -> e.firstExecution(new BatchId(-1, 0, 1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> e.firstExecution(new BatchId(0, 7, 0))).as("sn starts at 1").isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("incarnations of one origin are separate streams: a restarted origin's sn 1 is new")
    void severalIncarnations() {
        ExecutedIds e = new ExecutedIds();
        assertThat(e.firstExecution(new BatchId(2, 100, 1))).isTrue();
        assertThat(e.firstExecution(new BatchId(2, 200, 1))).isTrue();
        assertThat(e.firstExecution(new BatchId(2, 100, 2))).as("a late re-forwarded old-incarnation batch").isTrue();
        assertThat(e.firstExecution(new BatchId(2, 100, 2))).isFalse();
        assertThat(e.streams()).isEqualTo(2);
        List<String> streams = new ArrayList<>();
        e.forEachStream((o, inc, below) -> streams.add(o + ":" + inc + "<" + below));
        assertThat(streams).containsExactly("2:100<3", "2:200<2");
    }

    @Test
    @DisplayName("toBytes/fromBytes round trip keeps every answer; bad bytes are refused")
    void roundTrip() {
        ExecutedIds e = new ExecutedIds();
        for (int o = 0; o < 3; o++) {
            for (long sn = 1; sn <= 50; sn += 1 + o) {
                e.firstExecution(new BatchId(o, 9, sn));
            }
        }
        byte[] bytes = e.toBytes();
        assertThat(bytes).hasSize(e.encodedSize());
        ExecutedIds back = ExecutedIds.fromBytes(bytes);
        assertThat(back).isEqualTo(e);
        assertThat(back.toBytes()).isEqualTo(bytes);
        for (int o = 0; o < 3; o++) {
            for (long sn = 1; sn <= 60; sn++) {
                BatchId id = new BatchId(o, 9, sn);
                assertThat(back.executed(id)).isEqualTo(e.executed(id));
            }
        }
        assertThat(ExecutedIds.fromBytes(new byte[0])).isEqualTo(new ExecutedIds());
        for (int cut = 1; cut < bytes.length; cut += 17) {
            byte[] shorter = java.util.Arrays.copyOf(bytes, cut);
            assertThatThrownBy(() -> ExecutedIds.fromBytes(shorter)).isInstanceOf(IllegalArgumentException.class);
        }
        byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 1);
        assertThatThrownBy(() -> ExecutedIds.fromBytes(longer)).isInstanceOf(IllegalArgumentException.class);
        ByteBuffer huge = ByteBuffer.allocate(4).putInt(0, Integer.MAX_VALUE);
        assertThatThrownBy(() -> ExecutedIds.fromBytes(huge)).isInstanceOf(IllegalArgumentException.class);
        assertThat(e.copy()).isEqualTo(e).isNotSameAs(e);
    }

    @Test
    @DisplayName("the window argument: with B <= 1024, sn s decided implies sn <= s-B decided earlier, so nothing slides out unexecuted")
    void windowArgument() {
        int b = SPaxosConfig.MAX_UNDECIDED_LIMIT;
        assertThat(b).isLessThanOrEqualTo(SequenceWindow.WINDOW);
        ExecutedIds e = new ExecutedIds();
        // An origin with span bound B: sn s is numbered only once every sn <= s - B was decided.
        // Decide in a scrambled order that respects that bound: blocks of B, reversed inside.
        long top = 5L * b;
        for (long start = 1; start <= top; start += b) {
            for (long sn = start + b - 1; sn >= start; sn--) {
                assertThat(e.firstExecution(new BatchId(0, 1, sn))).as("sn %s", sn).isTrue();
            }
        }
        for (long sn = 1; sn <= top; sn++) {
            assertThat(e.firstExecution(new BatchId(0, 1, sn))).as("duplicate %s", sn).isFalse();
        }
        assertThat(e.executedBelow(0, 1)).isEqualTo(top + 1);
    }
}
