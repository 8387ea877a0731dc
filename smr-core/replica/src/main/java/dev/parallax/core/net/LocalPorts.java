package dev.parallax.core.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks free loopback TCP ports for local clusters (tests, the demo, benchmarks).
 *
 * <p>Ports come from below the kernel's ephemeral range ({@code net.ipv4.ip_local_port_range},
 * 32768 and up by default). A port inside that range can be taken, between probing and binding,
 * by the local end of an outgoing connection: a replica that starts first and connects to a peer
 * that is not up yet holds such a port, and the peer then fails to bind its listen port (CI saw
 * exactly that). Below the range the kernel never assigns ports on its own.
 *
 * <p>Each JVM starts its scan at a random point, and remembers every port it returned, so it never
 * returns one twice; a set of endpoints built from successive calls is therefore distinct. JVMs of
 * one machine also reserve what they return from each other: a port is returned only once this JVM
 * holds a lock on that port's byte of a shared file in the temporary directory (a POSIX record lock,
 * released when the JVM exits), so two test JVMs running side by side never hand out one port
 * between one's probe and its bind (CI saw that too). Another program may still bind a returned
 * port first; callers bind promptly. Without the shared file (no temporary directory) ports are
 * reserved within the JVM only.
 *
 * <p>Thread-safe; each call blocks only for the probe socket's open/close.
 */
public final class LocalPorts {
    /** Lowest port handed out: above the well-known and most registered service ports. */
    static final int LOWEST = 12_000;
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
    private static final int HIGHEST = ephemeralLow() - 1;
    private static int cursor = LOWEST + ThreadLocalRandom.current().nextInt(HIGHEST - LOWEST + 1);
    /** The machine-wide reservations: one byte per port; held open for the JVM's life, or null. */
    private static final FileChannel RESERVATIONS = openReservations();

    private LocalPorts() {
    }

    /**
     * A port on this machine, below the ephemeral range, that could be bound on loopback a moment
     * ago and that this JVM has not handed out before.
     *
     * @throws IllegalStateException if every port of the range is taken
     */
    public static synchronized int next() {
        int span = HIGHEST - LOWEST + 1;
        for (int probe = 0; probe < span; probe++) {
            int port = cursor;
            cursor = cursor == HIGHEST ? LOWEST : cursor + 1;
            if (!HANDED_OUT.contains(port) && reserved(port) && bindable(port)) {
                HANDED_OUT.add(port);
                return port;
            }
        }
        throw new IllegalStateException("no free port in " + LOWEST + ".." + HIGHEST);
    }

    /** A comma-separated endpoint list {@code 0=127.0.0.1:p0,1=127.0.0.1:p1,...} of {@code n} fresh ports. */
    public static String endpoints(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ",").append(i).append("=127.0.0.1:").append(next());
        }
        return sb.toString();
    }

    /** The highest port {@link #next()} may return. */
    static int highest() {
        return HIGHEST;
    }

    /** Whether this JVM now holds port {@code port}'s reservation (no other JVM of the machine does). */
    private static boolean reserved(int port) {
        if (RESERVATIONS == null) {
            return true;
        }
        try {
            return RESERVATIONS.tryLock(port, 1, false) != null; // kept until the JVM exits
        } catch (IOException | OverlappingFileLockException e) {
            return false;
        }
    }

    private static FileChannel openReservations() {
        try {
            return FileChannel.open(Path.of(System.getProperty("java.io.tmpdir"), "parallax-local-ports.lock"),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The first port of the kernel's ephemeral range, or 32768 (Linux's default) if unknown. */
    private static int ephemeralLow() {
        try {
            String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range"), StandardCharsets.US_ASCII);
            int low = Integer.parseInt(range.trim().split("\\s+")[0]);
            return low > LOWEST + 1000 ? low : 32_768;
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }
}
