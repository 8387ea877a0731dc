package dev.parallax.core.wire;

import dev.parallax.core.wire.tls.TlsRefusals;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The network meters of one endpoint kind ({@code replica} or {@code client}): frames rejected as
 * malformed, messages dropped on a full or broken link, connections accepted, connections closed
 * for a stale partial frame, failed outbound connection attempts; and, with TLS, the connections
 * refused for TLS reasons ({@link #tlsRefusals}). Thread-safe.
 */
public final class NetMetrics {
    private final MeterRegistry registry;
    private final String kind;
    private final Counter badFrames;
    private final Counter dropped;
    private final Counter connections;
    private final Counter stalePartialFrames;
    private final Counter connectFailures;

    public NetMetrics(MeterRegistry registry, String kind) {
        this.registry = registry;
        this.kind = kind;
        this.badFrames = Counter.builder("parallax.net.bad.frames")
                .description("connections closed because a frame was malformed, oversized or of an unknown type")
                .tag("kind", kind).register(registry);
        this.dropped = Counter.builder("parallax.net.dropped")
                .description("messages not sent: send queue full or link down")
                .tag("kind", kind).register(registry);
        this.connections = Counter.builder("parallax.net.connections")
                .description("connections accepted").tag("kind", kind).register(registry);
        this.stalePartialFrames = Counter.builder("parallax.net.stale.partial.frames")
                .description("connections closed because a frame stayed incomplete longer than the partial-frame timeout")
                .tag("kind", kind).register(registry);
        this.connectFailures = Counter.builder("parallax.net.connect.failures")
                .description("outbound connection attempts that failed (each followed by a back-off)")
                .tag("kind", kind).register(registry);
    }

    public void badFrame() {
        badFrames.increment();
    }

    public void dropped() {
        dropped.increment();
    }

    public void connected() {
        connections.increment();
    }

    public void stalePartialFrame() {
        stalePartialFrames.increment();
    }

    public void connectFailed() {
        connectFailures.increment();
    }

    /**
     * The TLS refusal meters of this endpoint kind ({@code parallax.net.refused{kind,reason}});
     * {@code who} names the endpoint in log lines, e.g. {@code "replica 2"}.
     */
    public TlsRefusals tlsRefusals(String who) {
        return TlsRefusals.counted(registry, kind, who);
    }

}
