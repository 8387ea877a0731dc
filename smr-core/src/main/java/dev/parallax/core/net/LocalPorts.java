package dev.parallax.core.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Picks free loopback TCP ports for local clusters (tests, the demo, benchmarks).
 *
 * <p>The operating system may hand out a port again as soon as the probe socket closes, so two
 * calls made before either port is bound could return the same number. This class remembers every
 * port it returned in this JVM and never returns one twice, which makes a set of endpoints built
 * from successive calls distinct. Ports taken by other processes between probing and binding can
 * still collide; callers bind promptly.
 *
 * <p>Thread-safe; each call blocks only for the probe socket's open/close.
 */
public final class LocalPorts {
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
    private static final int MAX_PROBES = 1000;

    private LocalPorts() {
    }

    /** A free port on this machine that this JVM has not handed out before. */
    public static int next() {
        for (int probe = 0; probe < MAX_PROBES; probe++) {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot probe for a free port", e);
            }
            if (HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no unused port found after " + MAX_PROBES + " probes");
    }

    /** A comma-separated endpoint list {@code 0=127.0.0.1:p0,1=127.0.0.1:p1,...} of {@code n} fresh ports. */
    public static String endpoints(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ",").append(i).append("=127.0.0.1:").append(next());
        }
        return sb.toString();
    }
}
