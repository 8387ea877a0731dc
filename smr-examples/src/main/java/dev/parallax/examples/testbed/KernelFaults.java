package dev.parallax.examples.testbed;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Network faults done by the kernel between the hosts of a {@link Testbed}, never by the replicas:
 * each host gets an nftables table {@code inet parallax} whose input chain drops what the faults
 * say, by source address, so unicast (TCP) and M-Ring's IP multicast are dropped alike; and a tc
 * token bucket on a host's link caps its egress ({@link Testbed#cap}). A drop is set on the receiving host: link
 * {@code a -> b} is cut (or made lossy) in {@code b}'s input. Traffic from and to the root
 * namespace (clients) is never touched.
 *
 * <ul>
 *   <li>{@link #cut}: every packet of {@code a -> b} dropped (one way);</li>
 *   <li>{@link #lose}: each packet of {@code a -> b} dropped with a probability, in per mille;</li>
 *   <li>{@link #heal}: every drop removed (the caps stay);</li>
 *   <li>caps are the test bed's ({@link Testbed#cap}, {@link Testbed#uncap}); {@link #close} removes them;</li>
 *   <li>{@link #delay}: a host's egress delayed, where the kernel has {@code sch_netem}
 *       ({@link #delaySupported}; this machine's kernel has not).</li>
 * </ul>
 *
 * <p>Needs {@code nft} and {@code tc}. One owner thread; every method blocks for the commands it
 * runs (a few milliseconds each). {@link #close} heals, uncaps and removes the tables.
 */
public final class KernelFaults implements AutoCloseable {
    private static final String TABLE = "parallax";
    private final Testbed bed;
    private Boolean netem;

    /**
     * Installs the (empty) tables in every host, replacing what a killed run left.
     *
     * @throws IOException if {@code nft} is missing or refuses
     */
    public KernelFaults(Testbed bed) throws IOException {
        this.bed = bed;
        for (int h = 0; h < bed.hosts(); h++) {
            nft(h, "add table inet " + TABLE);
            nft(h, "add chain inet " + TABLE + " input { type filter hook input priority 0 ; policy accept ; }");
            nft(h, "flush chain inet " + TABLE + " input");
        }
    }

    /** Drops every packet host {@code from} sends to host {@code to} (multicast included). */
    public void cut(int from, int to) throws IOException {
        nft(to, "add rule inet " + TABLE + " input ip saddr " + bed.address(from) + " drop");
    }

    /** Drops each packet host {@code from} sends to host {@code to} with probability {@code perMille}/1000. */
    public void lose(int from, int to, int perMille) throws IOException {
        if (perMille < 0 || perMille > 1000) {
            throw new IllegalArgumentException("loss must be 0..1000 per mille, not " + perMille);
        }
        if (perMille == 1000) {
            cut(from, to);
        } else if (perMille > 0) {
            nft(to, "add rule inet " + TABLE + " input ip saddr " + bed.address(from) + " numgen random mod 1000 < "
                    + perMille + " drop");
        }
    }

    /** Removes every drop (cuts and losses) on every host; caps stay. */
    public void heal() throws IOException {
        for (int h = 0; h < bed.hosts(); h++) {
            nft(h, "flush chain inet " + TABLE + " input");
        }
    }

    /** The packets host {@code host} dropped by the faults since the last heal. */
    public long dropped(int host) throws IOException {
        String listing = bed.runIn(host, List.of("nft", "list", "chain", "inet", TABLE, "input"));
        long total = 0;
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("counter packets (\\d+)").matcher(listing);
        while (m.find()) {
            total += Long.parseLong(m.group(1));
        }
        return total;
    }

    /** Whether this kernel can delay packets (sch_netem); probed once on host 0. */
    public boolean delaySupported() {
        if (netem == null) {
            try {
                bed.runIn(0, List.of("tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms"));
                bed.runIn(0, List.of("tc", "qdisc", "del", "dev", "lo", "root"));
                netem = true;
            } catch (IOException e) {
                netem = false;
            }
        }
        return netem;
    }

    /**
     * Delays host {@code host}'s egress by {@code millis} (replacing its cap).
     *
     * @throws UnsupportedOperationException if the kernel lacks sch_netem ({@link #delaySupported})
     */
    public void delay(int host, int millis) throws IOException {
        if (!delaySupported()) {
            throw new UnsupportedOperationException("this kernel has no sch_netem: no delay injection");
        }
        bed.runIn(host, List.of("tc", "qdisc", "replace", "dev", Testbed.INTERFACE, "root", "netem", "delay", millis + "ms"));
    }

    private void nft(int host, String command) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("nft"));
        cmd.addAll(List.of(command.replace(" drop", " counter drop").split(" ")));
        bed.runIn(host, cmd);
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (int h = 0; h < bed.hosts(); h++) {
            try {
                bed.uncap(h);
                nft(h, "delete table inet " + TABLE);
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
