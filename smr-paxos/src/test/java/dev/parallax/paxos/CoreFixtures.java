package dev.parallax.paxos;

import dev.parallax.core.protocol.EffectBuffer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/** Shared settings and helpers of the pure-core tests (single-threaded, virtual time). */
final class CoreFixtures {
    static final long MS = 1_000_000L;
    /** Three replicas, window 3, timeouts of the defaults' order: the configuration the rule tests reason about. */
    static final PaxosConfig CONFIG = PaxosConfig.builder(3).window(3)
            .heartbeat(Duration.ofMillis(50)).suspect(Duration.ofMillis(500))
            .retransmit(Duration.ofMillis(200)).catchUp(Duration.ofMillis(100)).build();

    private CoreFixtures() {
    }

    /** A replica of {@link #CONFIG} that never ran. */
    static MultiPaxosCore fresh(int id) {
        return new MultiPaxosCore(CONFIG, id, List.of(), 0);
    }

    /** Replica 0 leading view 0 since {@code t = 1}: Phase 1 answered by 1 and 2; {@code out} cleared. */
    static MultiPaxosCore leaderOfView0(EffectBuffer<PaxosMessage, PaxosRecord, Value> out) {
        MultiPaxosCore leader = fresh(0);
        leader.onTick(1, out);
        leader.onMessage(0, new PaxosMessage.PrepareOk(0, 0, List.of()), 1, out);
        leader.onMessage(1, new PaxosMessage.PrepareOk(0, 0, List.of()), 1, out);
        if (!leader.isLeader()) {
            throw new AssertionError("replica 0 does not lead view 0");
        }
        out.clear();
        return leader;
    }

    static Value v(String s) {
        return Value.of(s.getBytes(StandardCharsets.UTF_8));
    }
}
