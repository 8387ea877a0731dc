package dev.parallax.bench.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Writes a {@link BenchResult} as JSON (the whole result) and CSV (the timeline), and a
 * {@link SweepResult} as JSON (every level) and CSV (one row per level). Stateless and thread-safe;
 * the write methods block on file I/O and throw {@link IOException} if it fails.
 */
public final class ResultWriter {
    private ResultWriter() {
    }

    /** The result as a JSON object. */
    public static String json(BenchResult r) {
        return json(r, Map.of());
    }

    /** The result as a JSON object, with the system's {@code settings} if any. */
    public static String json(BenchResult r, Map<String, String> settings) {
        StringBuilder sb = new StringBuilder();
        sb.append("{\n");
        sb.append("  \"system\": ").append(quote(r.system())).append(",\n");
        if (!settings.isEmpty()) {
            sb.append("  \"settings\": ").append(strings(settings)).append(",\n");
        }
        sb.append("  \"load\": ").append(load(r.spec(), true)).append(",\n");
        sb.append(String.format(Locale.ROOT, "  \"completed\": %d,%n  \"failed\": %d,%n  \"seconds\": %.3f,%n"
                + "  \"throughput\": %.1f,%n  \"cpuUsPerCommand\": %.3f,%n", r.completed(), r.failed(), r.seconds(),
                r.throughput(), r.cpuUsPerCommand()));
        sb.append("  \"latencyUs\": ").append(longs(r.percentilesUs())).append(",\n");
        sb.append("  \"cpuSeconds\": ").append(doubles(r.cpuSeconds())).append(",\n");
        if (!r.bytesSent().isEmpty()) {
            sb.append("  \"bytesSent\": ").append(doubles(r.bytesSent())).append(",\n");
        }
        sb.append(traffic(r.traffic(), "  ", ",\n"));
        sb.append("  \"timeline\": [");
        sb.append(r.timeline().stream().map(t -> String.format(Locale.ROOT, "{\"second\": %d, \"completed\": %d, \"p99Us\": %d}",
                t.second(), t.completed(), t.p99Us())).collect(Collectors.joining(", ")));
        sb.append("]\n}\n");
        return sb.toString();
    }

    /**
     * The traffic counts as JSON members ({@code peerBytesSent}, {@code deliveredBytes},
     * {@code senderBytesPerDeliveredByte}), each preceded by {@code lead} and followed by
     * {@code trail}; empty when not counted.
     */
    private static String traffic(BenchResult.Traffic t, String lead, String trail) {
        if (t.peerBytesSent().isEmpty() && t.deliveredBytes().isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        sb.append(lead).append("\"peerBytesSent\": ").append(doubles(t.peerBytesSent())).append(trail);
        sb.append(lead).append("\"deliveredBytes\": ").append(doubles(t.deliveredBytes())).append(trail);
        if (t.senderBytesPerDeliveredByte().isPresent()) {
            sb.append(lead).append(String.format(Locale.ROOT, "\"senderBytesPerDeliveredByte\": %.4f",
                    t.senderBytesPerDeliveredByte().getAsDouble())).append(trail);
        }
        return sb.toString();
    }

    /** The timeline as CSV: second, completed, p99_us. */
    public static String csv(BenchResult r) {
        StringBuilder sb = new StringBuilder("second,completed,p99_us\n");
        for (BenchResult.Second t : r.timeline()) {
            sb.append(t.second()).append(',').append(t.completed()).append(',').append(t.p99Us()).append('\n');
        }
        return sb.toString();
    }

    /** The sweep as a JSON object: its load, stop reason and one entry per level. */
    public static String json(SweepResult s, Map<String, String> settings) {
        StringBuilder sb = new StringBuilder();
        sb.append("{\n");
        sb.append("  \"system\": ").append(quote(s.system())).append(",\n");
        if (!settings.isEmpty()) {
            sb.append("  \"settings\": ").append(strings(settings)).append(",\n");
        }
        sb.append("  \"load\": ").append(load(s.base(), false)).append(",\n");
        sb.append("  \"stopReason\": ").append(quote(s.stopReason())).append(",\n");
        sb.append("  \"points\": [\n");
        sb.append(s.points().stream().map(p -> {
            BenchResult r = p.result();
            return String.format(Locale.ROOT, "    {\"outstanding\": %d, \"throughput\": %.1f, \"completed\": %d, "
                            + "\"failed\": %d, \"seconds\": %.3f, \"cpuUsPerCommand\": %.3f, \"latencyUs\": %s, \"cpuSeconds\": %s%s}",
                    p.outstanding(), r.throughput(), r.completed(), r.failed(), r.seconds(), r.cpuUsPerCommand(),
                    longs(r.percentilesUs()), doubles(r.cpuSeconds()),
                    (r.bytesSent().isEmpty() ? "" : ", \"bytesSent\": " + doubles(r.bytesSent())) + traffic(r.traffic(), ", ", ""));
        }).collect(Collectors.joining(",\n")));
        sb.append("\n  ]\n}\n");
        return sb.toString();
    }

    /** The sweep as CSV, one row per level. */
    public static String csv(SweepResult s) {
        StringBuilder sb = new StringBuilder("outstanding,throughput,p50_us,p99_us,p99.9_us,cpu_us_per_command,failed\n");
        for (SweepPoint p : s.points()) {
            BenchResult r = p.result();
            sb.append(String.format(Locale.ROOT, "%d,%.1f,%d,%d,%d,%.3f,%d%n", p.outstanding(), r.throughput(), p.p50Us(),
                    p.p99Us(), r.percentilesUs().getOrDefault("p99.9", 0L), r.cpuUsPerCommand(), r.failed()));
        }
        return sb.toString();
    }

    /** Writes {@code <name>.json} and {@code <name>.csv} into {@code dir}. */
    public static void write(BenchResult r, Path dir, String name) throws IOException {
        write(r, Map.of(), dir, name);
    }

    /** Writes {@code <name>.json} (with {@code settings}) and {@code <name>.csv} into {@code dir}. */
    public static void write(BenchResult r, Map<String, String> settings, Path dir, String name) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(name + ".json"), json(r, settings), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve(name + ".csv"), csv(r), StandardCharsets.UTF_8);
    }

    /** Writes {@code <name>.json} (with {@code settings}) and {@code <name>.csv} of a sweep into {@code dir}. */
    public static void write(SweepResult s, Map<String, String> settings, Path dir, String name) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(name + ".json"), json(s, settings), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve(name + ".csv"), csv(s), StandardCharsets.UTF_8);
    }

    private static String load(LoadSpec s, boolean withOutstanding) {
        return String.format(Locale.ROOT, "{\"connections\": %d, %s\"commandBytes\": %d, \"readPercent\": %d, \"keys\": %d, "
                        + "\"warmupSeconds\": %d, \"durationSeconds\": %d}", s.connections(),
                withOutstanding ? "\"outstanding\": " + s.outstanding() + ", " : "", s.commandBytes(), s.readPercent(),
                s.keys(), s.warmup().toSeconds(), s.duration().toSeconds());
    }

    private static String longs(Map<String, Long> m) {
        return m.entrySet().stream().map(e -> quote(e.getKey()) + ": " + e.getValue())
                .collect(Collectors.joining(", ", "{", "}"));
    }

    private static String doubles(Map<String, Double> m) {
        return m.entrySet().stream().map(e -> quote(e.getKey()) + ": " + String.format(Locale.ROOT, "%.3f", e.getValue()))
                .collect(Collectors.joining(", ", "{", "}"));
    }

    private static String strings(Map<String, String> m) {
        return m.entrySet().stream().map(e -> quote(e.getKey()) + ": " + quote(e.getValue()))
                .collect(Collectors.joining(", ", "{", "}"));
    }

    private static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '\r' -> sb.append("\\r");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
