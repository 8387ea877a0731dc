package dev.parallax.paxos;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Shared settings and helpers of the pure-core tests (single-threaded, virtual time). */
final class CoreFixtures {
    static final long MS = 1_000_000L;
    /** Three replicas, window 3, timeouts of the defaults' order: the configuration the rule tests reason about. */
    static final PaxosConfig CONFIG = PaxosConfig.builder(3).window(3)
            .heartbeat(Duration.ofMillis(50)).suspect(Duration.ofMillis(500))
            .retransmit(Duration.ofMillis(200)).catchUp(Duration.ofMillis(100)).build();

    private CoreFixtures() {
    }

    static Value v(String s) {
        return Value.of(s.getBytes(StandardCharsets.UTF_8));
    }
}
