package dev.parallax.bench.report;

import dev.parallax.bench.load.BenchResult;

import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/** Renders {@link ComparisonTable}s as Markdown. Stateless and thread-safe. */
public final class ComparisonMarkdown {
    private ComparisonMarkdown() {
    }

    /**
     * A document: {@code title}, the lines of {@code preamble} (one paragraph), then one section
     * per table.
     */
    public static String document(String title, List<String> preamble, List<ComparisonTable> tables) {
        StringBuilder sb = new StringBuilder("# ").append(title).append("\n\n");
        preamble.forEach(line -> sb.append(line).append("  \n"));
        for (ComparisonTable t : tables) {
            sb.append('\n').append(section(t));
        }
        return sb.toString();
    }

    /** One table's section: heading, table, which Parallax the ratios refer to, and its ratios to the limits. */
    public static String section(ComparisonTable t) {
        String target = ms(t.p99TargetUs());
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "## %d B commands%n%n", t.commandBytes()));
        sb.append(String.format(Locale.ROOT, "| system | best ops/s | outstanding | p50 ms | p99 ms | ops/s at p99 <= %s ms "
                + "| CPU us/cmd | Parallax/system (best) | Parallax/system (p99 <= %s ms) |%n", target, target));
        sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (ComparisonTable.Row r : t.rows()) {
            if (r.failed()) {
                sb.append("| ").append(r.system()).append(" | failed: ").append(r.failure().replace('|', '/').replace('\n', ' '))
                        .append(" | | | | | | | |\n");
                continue;
            }
            sb.append(String.format(Locale.ROOT, "| %s | %,.0f | %d | %s | %s | %s | %.1f | %s | %s |%n", r.system(),
                    r.bestThroughput(), r.bestOutstanding(), ms(r.bestP50Us()), ms(r.bestP99Us()), ops(r.atTarget()),
                    r.cpuUsPerCommand(), times(r.ratioBest()), times(r.ratioAtTarget())));
        }
        sb.append('\n');
        sb.append(balance(t));
        sb.append(efficiency(t));
        if (t.parallax().isEmpty()) {
            sb.append("No parallax-* system was swept: no ratios.\n");
            return sb.toString();
        }
        String p = t.parallax().get();
        sb.append("Parallax = ").append(p).append(" (the parallax-* system with the best throughput).\n\n");
        for (String limit : List.of("echo", "forwarder")) {
            t.row(limit).filter(r -> !r.failed()).ifPresent(r -> sb.append(String.format(Locale.ROOT,
                    "- Parallax/%s: %s at best throughput, %s at p99 <= %s ms%n", limit, times(r.ratioBest()),
                    times(r.ratioAtTarget()), target)));
        }
        return sb.toString();
    }

    /**
     * How the work of each system's best level fell on its server processes: CPU microseconds and
     * bytes sent (to peers and clients) per command of each (by process name), and the max/min of both; empty if no
     * system measured more than one server process.
     */
    public static String balance(ComparisonTable t) {
        List<ComparisonTable.Row> rows = t.rows().stream().filter(r -> !r.failed() && r.serverCpuUsPerCommand().size() > 1).toList();
        if (rows.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        sb.append("Per server process at the best level (balance: max/min over the processes):\n\n");
        sb.append("| system | CPU us/cmd per process | CPU max/min | bytes sent/cmd per process | bytes max/min |\n");
        sb.append("|---|---|---:|---|---:|\n");
        for (ComparisonTable.Row r : rows) {
            sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s |%n", r.system(), perProcess(r.serverCpuUsPerCommand(), "%.1f"),
                    times(r.cpuMaxOverMin()), r.bytesPerCommand().isEmpty() ? "-" : perProcess(r.bytesPerCommand(), "%,.0f"),
                    times(r.bytesMaxOverMin())));
        }
        sb.append('\n');
        return sb.toString();
    }

    /**
     * The efficiency metric of each system that counts traffic, at its best level (seed 003 (Ring
     * Paxos) §3.1 ¶2, Table 3.2): the bytes the busiest replica sent to its peers (TCP and
     * datagrams, client replies excluded) per byte a replica delivered on average, and its inverse,
     * the paper's efficiency; empty if no system counted traffic.
     */
    public static String efficiency(ComparisonTable t) {
        List<ComparisonTable.Row> rows = t.rows().stream()
                .filter(r -> !r.failed() && r.traffic().senderBytesPerDeliveredByte().isPresent()).toList();
        if (rows.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        sb.append("Efficiency at the best level (seed 003 §3.1: delivered bytes per receiver over the busiest sender's bytes):\n\n");
        sb.append("| system | replicas | busiest sender | sender B per delivered B | efficiency |\n");
        sb.append("|---|---:|---|---:|---:|\n");
        for (ComparisonTable.Row r : rows) {
            BenchResult.Traffic tr = r.traffic();
            sb.append(String.format(Locale.ROOT, "| %s | %d | %s | %.2f | %.0f%% |%n", r.system(), tr.deliveredBytes().size(),
                    tr.busiestSender().orElse("-"), tr.senderBytesPerDeliveredByte().getAsDouble(),
                    100 * tr.efficiency().orElse(0)));
        }
        sb.append('\n');
        return sb.toString();
    }

    private static String perProcess(java.util.Map<String, Double> values, String format) {
        StringBuilder sb = new StringBuilder();
        new java.util.TreeMap<>(values).forEach((name, v) -> {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(name).append(' ').append(String.format(Locale.ROOT, format, v));
        });
        return sb.toString();
    }

    private static String ms(long us) {
        return String.format(Locale.ROOT, "%.2f", us / 1e3);
    }

    private static String ops(OptionalDouble v) {
        return v.isPresent() ? String.format(Locale.ROOT, "%,.0f", v.getAsDouble()) : "-";
    }

    private static String times(OptionalDouble v) {
        return v.isPresent() ? String.format(Locale.ROOT, "%.2fx", v.getAsDouble()) : "-";
    }
}
