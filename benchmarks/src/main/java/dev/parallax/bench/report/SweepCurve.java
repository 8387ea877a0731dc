package dev.parallax.bench.report;

import dev.parallax.bench.load.SweepPoint;
import dev.parallax.bench.load.SweepResult;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One system's latency-against-throughput curve, as a chart draws it: a point per sweep level.
 * Built from a {@link SweepResult} in memory, or read back from the files a sweep wrote
 * ({@code <name>.csv} or {@code <name>.json}, see {@code ResultWriter}), so that charts can be
 * redrawn from stored results. Immutable; the arrays are copies.
 *
 * @param system     the legend's name
 * @param throughput commands per second, per level
 * @param p50Ms      median latency in milliseconds, per level
 * @param p99Ms      99th-percentile latency in milliseconds, per level
 */
public record SweepCurve(String system, double[] throughput, double[] p50Ms, double[] p99Ms) {
    /** Latencies are drawn on a log axis, which cannot show 0: sub-microsecond values are shown as this. */
    static final double MIN_MS = 0.001;
    private static final Pattern JSON_POINT = Pattern.compile(
            "\"throughput\":\\s*([0-9.]+).*\"latencyUs\":\\s*\\{[^}]*\"p50\":\\s*(\\d+)[^}]*\"p99\":\\s*(\\d+)");

    public SweepCurve {
        if (throughput.length == 0 || throughput.length != p50Ms.length || throughput.length != p99Ms.length) {
            throw new IllegalArgumentException(system + ": a curve has at least one point and as many latencies as throughputs");
        }
        throughput = throughput.clone();
        p50Ms = p50Ms.clone();
        p99Ms = p99Ms.clone();
    }

    /** The curve of a sweep just run. */
    public static SweepCurve of(SweepResult s) {
        List<double[]> rows = new ArrayList<>();
        for (SweepPoint p : s.points()) {
            rows.add(new double[] {p.throughput(), p.p50Us(), p.p99Us()});
        }
        return of(s.system(), rows);
    }

    /**
     * Reads the curve a sweep wrote to {@code file}: its CSV (header {@code outstanding,throughput,
     * p50_us,p99_us,...}) or its JSON (one point per line, as {@code ResultWriter} writes them).
     *
     * @throws IOException if the file cannot be read or holds no point
     */
    public static SweepCurve read(String system, Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        List<double[]> rows = new ArrayList<>();
        if (file.getFileName().toString().endsWith(".csv")) {
            if (lines.isEmpty() || !lines.get(0).startsWith("outstanding,throughput,p50_us,p99_us")) {
                throw new IOException(file + ": not a sweep CSV (header outstanding,throughput,p50_us,p99_us,...)");
            }
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.split(",");
                if (f.length >= 4) {
                    rows.add(new double[] {Double.parseDouble(f[1]), Double.parseDouble(f[2]), Double.parseDouble(f[3])});
                }
            }
        } else {
            for (String line : lines) {
                Matcher m = JSON_POINT.matcher(line);
                if (m.find()) {
                    rows.add(new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2)),
                            Double.parseDouble(m.group(3))});
                }
            }
        }
        if (rows.isEmpty()) {
            throw new IOException(file + ": no sweep point");
        }
        return of(system, rows);
    }

    private static SweepCurve of(String system, List<double[]> rows) {
        double[] x = new double[rows.size()];
        double[] p50 = new double[rows.size()];
        double[] p99 = new double[rows.size()];
        for (int i = 0; i < rows.size(); i++) {
            x[i] = rows.get(i)[0];
            p50[i] = Math.max(MIN_MS, rows.get(i)[1] / 1e3);
            p99[i] = Math.max(MIN_MS, rows.get(i)[2] / 1e3);
        }
        return new SweepCurve(system, x, p50, p99);
    }
}
