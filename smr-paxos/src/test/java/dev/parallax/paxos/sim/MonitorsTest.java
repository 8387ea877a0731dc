package dev.parallax.paxos.sim;

import dev.parallax.core.testkit.smr.ClientMessage;
import dev.parallax.core.testkit.smr.WireBytes;
import dev.parallax.paxos.PaxosMessage;
import dev.parallax.paxos.PaxosMessageCodec;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The S-Paxos simulation's own checks bite on what they must catch, and pass what is correct. */
@dev.parallax.core.testkit.DeterministicSimulation
class MonitorsTest {
    private static ByteBuffer b(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    @DisplayName("ExecutionMonitor: same ids per instance, each id at one instance, increasing instances (seed 002 (S-Paxos) §IV-A l.19-22, footnote 5)")
    void executionMonitor() {
        ExecutionMonitor<String> m = new ExecutionMonitor<>();
        m.executed(0, 0, List.of("a", "b"));
        m.executed(1, 0, List.of("a", "b"));
        m.executed(0, 2, List.of("c"));
        m.startsAt(1, 2); // installed a snapshot at 2
        m.executed(1, 2, List.of("c"));
        assertThat(m.executions()).isEqualTo(4);
        assertThat(m.ids()).isEqualTo(3);
        assertThat(m.at(2)).containsExactly("c");
        assertThatThrownBy(() -> m.executed(2, 0, List.of("a"))).hasMessageContaining("another replica executed");
        assertThatThrownBy(() -> m.executed(0, 3, List.of("a"))).hasMessageContaining("exactly once");
        assertThatThrownBy(() -> m.executed(1, 1, List.of("d"))).hasMessageContaining("execution order");
        assertThatThrownBy(() -> new ExecutionMonitor<String>().executed(0, 0, List.of("x", "x")))
                .hasMessageContaining("exactly once");
    }

    @Test
    @DisplayName("BodyMonitor: executed bytes are the origin's persisted bytes; an id never names two bodies")
    void bodyMonitor() {
        BodyMonitor<String> m = new BodyMonitor<>();
        ByteBuffer body = b("P a 1");
        m.persisted(0, "x", body);
        assertThat(body.remaining()).as("not moved").isEqualTo(5);
        m.persisted(1, "x", b("P a 1"));
        m.executed(2, "x", b("P a 1"));
        assertThat(m.executions()).isEqualTo(1);
        assertThatThrownBy(() -> m.persisted(1, "x", b("P a 2"))).hasMessageContaining("other bytes");
        assertThatThrownBy(() -> m.executed(1, "x", b("P a 2"))).hasMessageContaining("other than its origin");
        assertThatThrownBy(() -> m.executed(1, "y", b("P a 2"))).hasMessageContaining("nobody persisted");
    }

    @Test
    @DisplayName("WireBytes: codec size plus frame header per replica send; clients and self-sends not counted")
    void wireBytes() {
        PaxosMessageCodec codec = new PaxosMessageCodec();
        WireBytes w = new WireBytes(2, m -> WireBytes.codecSize(codec, (PaxosMessage) m));
        PaxosMessage hb = new PaxosMessage.Heartbeat(3, 7);
        int size = WireBytes.codecSize(codec, hb);
        assertThat(size).isPositive();
        w.sent(0, 1, hb);
        w.sent(0, 0, hb);
        w.sent(100, 0, hb);
        w.sent(1, 100, new ClientMessage.Reply(new dev.parallax.core.CommandId(100, 1), "ok"));
        assertThat(w.protocolBytes(0)).isEqualTo(size + WireBytes.FRAME_HEADER);
        assertThat(w.clientBytes(1)).isEqualTo(WireBytes.FRAME_HEADER + 16 + 4 + 2);
        assertThat(w.maxOverMin()).isEqualTo((double) Math.max(w.total(0), w.total(1)) / Math.min(w.total(0), w.total(1)));
    }
}
