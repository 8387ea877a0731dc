package dev.parallax.examples.testbed;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The hosts of a running test bed ({@code ./parallax testbed up}, {@code scripts/testbed.sh}):
 * network namespaces {@code <prefix>-h0 .. h(N-1)} on one bridge, host {@code i} at
 * {@code <net>.(i+1)}, the root namespace (clients, load) at {@code <net>.254}. Replica {@code r}
 * runs in host {@code r mod N}; a process is started in a host through {@code ip netns exec}
 * ({@link #inHost}). The prefix and network are the script's: {@code PARALLAX_TESTBED_PREFIX}
 * (default {@code plx}) and {@code PARALLAX_TESTBED_NET} (default {@code 10.213.47}).
 *
 * <p>Immutable; {@link #attach} and {@link #run} block for the {@code ip} commands they start.
 */
public final class Testbed {
    /** The environment variable naming the hosts' prefix, as the script reads it. */
    public static final String PREFIX_ENV = "PARALLAX_TESTBED_PREFIX";
    /** The environment variable naming the first three octets of the /24, as the script reads it. */
    public static final String NET_ENV = "PARALLAX_TESTBED_NET";
    /** The name of every host's link to the bridge. */
    public static final String INTERFACE = "eth0";
    private static final Pattern HOST = Pattern.compile("^(\\S+)-h(\\d+)(\\s|$)", Pattern.MULTILINE);

    private final String prefix;
    private final String net;
    private final int hosts;

    private Testbed(String prefix, String net, int hosts) {
        this.prefix = prefix;
        this.net = net;
        this.hosts = hosts;
    }

    /**
     * The running test bed of this machine's environment ({@link #PREFIX_ENV}, {@link #NET_ENV}).
     *
     * @throws IllegalStateException with the reason, if this process is not root, {@code ip} cannot
     *     list namespaces, or no test bed is up
     */
    public static Testbed attach() {
        return attach(env(PREFIX_ENV, "plx"), env(NET_ENV, "10.213.47"));
    }

    /**
     * The running test bed whose hosts are {@code <prefix>-h0 ..} in {@code <net>.0/24} (the
     * project's own tests run one apart from an operator's).
     *
     * @throws IllegalStateException as {@link #attach()}
     */
    public static Testbed attach(String prefix, String net) {
        if (!isRoot()) {
            throw new IllegalStateException("--hosts needs root: replicas are started in network namespaces");
        }
        String listed;
        try {
            listed = run(List.of("ip", "netns", "list"));
        } catch (IOException e) {
            throw new IllegalStateException("--hosts needs network namespaces: " + e.getMessage());
        }
        Set<Integer> found = new java.util.TreeSet<>();
        Matcher m = HOST.matcher(listed);
        while (m.find()) {
            if (m.group(1).equals(prefix)) {
                found.add(Integer.parseInt(m.group(2)));
            }
        }
        int n = 0;
        while (found.contains(n)) {
            n++;
        }
        if (n == 0) {
            throw new IllegalStateException("no test bed is up (hosts " + prefix + "-h0 ...): run ./parallax testbed up --hosts N first");
        }
        return new Testbed(prefix, net, n);
    }

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v.strip();
    }

    private static boolean isRoot() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream()
                    .anyMatch(l -> l.startsWith("Uid:") && l.split("\\s+")[1].equals("0"));
        } catch (IOException e) {
            return false;
        }
    }

    /** How many hosts are up. */
    public int hosts() {
        return hosts;
    }

    /** The host replica {@code replica} runs in. */
    public int hostOf(int replica) {
        return Math.floorMod(replica, hosts);
    }

    /** Host {@code host}'s network namespace. */
    public String namespace(int host) {
        return prefix + "-h" + host;
    }

    /** Host {@code host}'s address. */
    public String address(int host) {
        return net + "." + (host + 1);
    }

    /** The root namespace's address on the bridge: where clients and the load run. */
    public String rootAddress() {
        return net + ".254";
    }

    /** The command prefix that runs a command in host {@code host}. */
    public List<String> inHost(int host) {
        return List.of("ip", "netns", "exec", namespace(host));
    }

    /**
     * An endpoint list ({@code 0=127.0.0.1:7001,1=...}) with every replica's address replaced by its
     * host's; the ports stay (each host has its own).
     */
    public String place(String endpoints) {
        return java.util.Arrays.stream(endpoints.split(",")).map(String::strip).map(e -> {
            int eq = e.indexOf('=');
            int colon = e.lastIndexOf(':');
            if (eq < 0 || colon < eq) {
                throw new IllegalArgumentException("not an endpoint id=host:port: " + e);
            }
            int id = Integer.parseInt(e.substring(0, eq).strip());
            return id + "=" + address(hostOf(id)) + e.substring(colon);
        }).collect(Collectors.joining(","));
    }

    /**
     * Caps host {@code host}'s egress at {@code mbit} Mbit/s: a tc token bucket on its link of about
     * 2 ms at the rate, at least 32 KiB (as {@code scripts/testbed.sh cap} does).
     *
     * @throws IllegalArgumentException if {@code mbit} is below 1
     * @throws IOException if tc refuses
     */
    public void cap(int host, int mbit) throws IOException {
        if (mbit < 1) {
            throw new IllegalArgumentException("a cap is at least 1 Mbit/s, not " + mbit);
        }
        long burst = Math.max(32_768, (long) mbit * 1_000_000 / 8 / 500);
        runIn(host, List.of("tc", "qdisc", "replace", "dev", INTERFACE, "root", "tbf", "rate", mbit + "mbit",
                "burst", Long.toString(burst), "latency", "50ms"));
    }

    /** Removes host {@code host}'s cap (or delay): idempotent. */
    public void uncap(int host) throws IOException {
        try {
            runIn(host, List.of("tc", "qdisc", "del", "dev", INTERFACE, "root"));
        } catch (IOException none) {
            // No qdisc of ours: nothing to remove.
        }
    }

    /**
     * The bytes host {@code host} has sent on its link since the test bed came up, every header and
     * datagram included: what the bridge side of its veth pair received.
     *
     * @throws IOException if the link is gone
     */
    public long sentBytes(int host) throws IOException {
        return Long.parseLong(Files.readString(Path.of("/sys/class/net/" + prefix + "-v" + host + "/statistics/rx_bytes")).strip());
    }

    /** Runs {@code command} in host {@code host}; its output. */
    public String runIn(int host, List<String> command) throws IOException {
        List<String> cmd = new ArrayList<>(inHost(host));
        cmd.addAll(command);
        return run(cmd);
    }

    /**
     * Runs {@code command} and returns its standard output.
     *
     * @throws IOException if it cannot start, runs past 30 s, or exits non-zero (its output in the message)
     */
    public static String run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + ": still running after 30 s");
            }
            String text = new String(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " exited " + p.exitValue() + ": " + text.strip());
            }
            return text;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted running " + String.join(" ", command), e);
        }
    }

    @Override
    public String toString() {
        return hosts + " test-bed hosts " + namespace(0) + ".." + namespace(hosts - 1) + " (" + net + ".0/24)";
    }
}
