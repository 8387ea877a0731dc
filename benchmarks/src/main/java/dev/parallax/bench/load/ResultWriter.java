package dev.parallax.bench.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** Writes a {@link BenchResult} as JSON (the whole result) and CSV (the timeline). Stateless. */
public final class ResultWriter {
    private ResultWriter() {
    }

    public static String json(BenchResult r) {
        StringBuilder sb = new StringBuilder();
        sb.append("{\n");
        sb.append("  \"system\": ").append(quote(r.system())).append(",\n");
        LoadSpec s = r.spec();
        sb.append(String.format(Locale.ROOT, "  \"load\": {\"connections\": %d, \"outstanding\": %d, \"commandBytes\": %d, "
                        + "\"readPercent\": %d, \"keys\": %d, \"warmupSeconds\": %d, \"durationSeconds\": %d},%n",
                s.connections(), s.outstanding(), s.commandBytes(), s.readPercent(), s.keys(),
                s.warmup().toSeconds(), s.duration().toSeconds()));
        sb.append(String.format(Locale.ROOT, "  \"completed\": %d,%n  \"failed\": %d,%n  \"seconds\": %.3f,%n"
                + "  \"throughput\": %.1f,%n  \"cpuUsPerCommand\": %.3f,%n", r.completed(), r.failed(), r.seconds(),
                r.throughput(), r.cpuUsPerCommand()));
        sb.append("  \"latencyUs\": ").append(longs(r.percentilesUs())).append(",\n");
        sb.append("  \"cpuSeconds\": ").append(r.cpuSeconds().entrySet().stream()
                .map(e -> quote(e.getKey()) + ": " + String.format(Locale.ROOT, "%.3f", e.getValue()))
                .collect(Collectors.joining(", ", "{", "}"))).append(",\n");
        sb.append("  \"timeline\": [");
        sb.append(r.timeline().stream().map(t -> String.format(Locale.ROOT, "{\"second\": %d, \"completed\": %d, \"p99Us\": %d}",
                t.second(), t.completed(), t.p99Us())).collect(Collectors.joining(", ")));
        sb.append("]\n}\n");
        return sb.toString();
    }

    public static String csv(BenchResult r) {
        StringBuilder sb = new StringBuilder("second,completed,p99_us\n");
        for (BenchResult.Second t : r.timeline()) {
            sb.append(t.second()).append(',').append(t.completed()).append(',').append(t.p99Us()).append('\n');
        }
        return sb.toString();
    }

    /** Writes {@code <name>.json} and {@code <name>.csv} into {@code dir}. */
    public static void write(BenchResult r, Path dir, String name) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(name + ".json"), json(r), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve(name + ".csv"), csv(r), StandardCharsets.UTF_8);
    }

    private static String longs(Map<String, Long> m) {
        return m.entrySet().stream().map(e -> quote(e.getKey()) + ": " + e.getValue())
                .collect(Collectors.joining(", ", "{", "}"));
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
