package dev.parallax.core.wire.tls;

import dev.parallax.core.wire.LogRateLimiter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;
import java.util.Objects;

/**
 * Counts and logs the connections one endpoint kind ({@code replica}, {@code client},
 * {@code redis}) refused for TLS reasons: {@code parallax.net.refused{kind, reason=tls}} for a
 * failed handshake (no certificate, an untrusted one, not TLS at all, a handshake time-out, a
 * broken TLS record), {@code {reason=identity}} for a certificate that does not name who the peer
 * claims, or was expected, to be ({@link PeerIdentity}). Every refusal is counted exactly; the
 * warnings share one process-wide {@link LogRateLimiter}. Thread-safe.
 */
public final class TlsRefusals {
    private static final Logger LOG = LoggerFactory.getLogger(TlsRefusals.class);
    private static final LogRateLimiter WARNINGS = LogRateLimiter.withDefaults("refused TLS connections");
    /** Longest detail logged (a record that is not TLS is described with a hex dump of its bytes). */
    private static final int MAX_DETAIL = 200;

    /** Why a connection was refused. */
    public enum Reason {
        /** The TLS handshake (or a later TLS record) failed. */
        TLS,
        /** The handshake succeeded but the certificate names someone else. */
        IDENTITY;

        /** The {@code reason} tag value. */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final String who;
    private final String kind;
    private final Counter tls;
    private final Counter identity;

    private TlsRefusals(String who, String kind, Counter tls, Counter identity) {
        this.who = who;
        this.kind = kind;
        this.tls = tls;
        this.identity = identity;
    }

    /**
     * Refusals counted in {@code registry}.
     *
     * @param kind the endpoint kind tag ({@code replica}, {@code client}, {@code redis})
     * @param who  names this endpoint in log lines, e.g. {@code "replica 2"}
     */
    public static TlsRefusals counted(MeterRegistry registry, String kind, String who) {
        return new TlsRefusals(who, kind, counter(registry, kind, Reason.TLS), counter(registry, kind, Reason.IDENTITY));
    }

    /** Refusals that are only logged (a client library without a meter registry). */
    public static TlsRefusals logged(String kind, String who) {
        return new TlsRefusals(who, kind, null, null);
    }

    private static Counter counter(MeterRegistry registry, String kind, Reason reason) {
        return Counter.builder("parallax.net.refused")
                .description("connections closed by TLS: a failed handshake (reason=tls) or a certificate naming someone else (reason=identity)")
                .tag("kind", kind).tag("reason", reason.tag()).register(Objects.requireNonNull(registry, "registry"));
    }

    /** Counts one refused connection on {@code channel} and logs it (rate-limited). Does not close it. */
    public void refused(Reason reason, Channel channel, String detail) {
        Counter c = reason == Reason.TLS ? tls : identity;
        if (c != null) {
            c.increment();
        }
        String d = detail.length() > MAX_DETAIL ? detail.substring(0, MAX_DETAIL) + "..." : detail;
        WARNINGS.warn(LOG, "{}: refused {} connection {} ({}): {}", who, kind, describe(channel), reason.tag(), d);
    }

    /** Refusals of {@code reason} counted so far (0 when only logged). */
    public double count(Reason reason) {
        Counter c = reason == Reason.TLS ? tls : identity;
        return c == null ? 0 : c.count();
    }

    private static String describe(Channel ch) {
        return "with " + (ch.remoteAddress() == null ? "?" : ch.remoteAddress()) + " (local " + (ch.localAddress() == null ? "?" : ch.localAddress()) + ")";
    }
}
