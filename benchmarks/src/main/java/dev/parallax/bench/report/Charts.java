package dev.parallax.bench.report;

import dev.parallax.bench.load.BenchResult;
import dev.parallax.bench.load.SweepResult;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import javax.imageio.ImageIO;

/**
 * PNG charts of bench results, drawn with XChart without a display ({@code java.awt.headless} is
 * set to true when this class loads, unless the property was set already). Stateless; each method
 * blocks while it renders and writes one file, and throws {@link IOException} if writing fails.
 * Safe to call from several threads.
 */
public final class Charts {
    private static final int WIDTH = 1000;
    private static final int HEIGHT = 600;
    private static final Color[] PALETTE = {
            new Color(31, 119, 180), new Color(255, 127, 14), new Color(44, 160, 44), new Color(214, 39, 40),
            new Color(148, 103, 189), new Color(140, 86, 75), new Color(227, 119, 194), new Color(127, 127, 127),
            new Color(188, 189, 34), new Color(23, 190, 207)};
    private static final BasicStroke SOLID = new BasicStroke(2f);
    private static final BasicStroke DASHED = new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
            new float[] {6f, 4f}, 0f);

    static {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }

    private Charts() {
    }

    /** Throughput (left axis) and p99 (right axis) per measured second of {@code r}, to {@code file}. */
    public static void timeline(BenchResult r, Path file) throws IOException {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT)
                .title(String.format(Locale.ROOT, "%s: %d x %d in flight, %d B", r.system(), r.spec().connections(),
                        r.spec().outstanding(), r.spec().commandBytes()))
                .xAxisTitle("second").yAxisTitle("ops/s").build();
        style(chart);
        int n = r.timeline().size();
        double[] x = new double[Math.max(1, n)];
        double[] ops = new double[x.length];
        double[] p99 = new double[x.length];
        for (int i = 0; i < n; i++) {
            BenchResult.Second s = r.timeline().get(i);
            x[i] = s.second();
            ops[i] = s.completed();
            p99[i] = s.p99Us() / 1e3;
        }
        XYSeries t = chart.addSeries("ops/s", x, ops);
        t.setLineColor(PALETTE[0]).setLineStyle(SOLID);
        t.setMarker(SeriesMarkers.CIRCLE).setMarkerColor(PALETTE[0]);
        XYSeries l = chart.addSeries("p99 ms", x, p99);
        l.setYAxisGroup(1);
        l.setLineColor(PALETTE[3]).setLineStyle(SOLID);
        l.setMarker(SeriesMarkers.DIAMOND).setMarkerColor(PALETTE[3]);
        chart.setYAxisGroupTitle(1, "p99 (ms)");
        chart.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
        chart.getStyler().setYAxisMin(0, 0.0).setYAxisMin(1, 0.0);
        write(chart, file);
    }

    /** p50 and p99 against throughput, one point per level of {@code s}, to {@code file}. */
    public static void latencyCurve(SweepResult s, Path file) throws IOException {
        XYChart chart = latencyChart(String.format(Locale.ROOT, "%s: latency vs throughput, %d connections, %d B",
                s.system(), s.base().connections(), s.base().commandBytes()));
        addCurves(chart, s, PALETTE[0], "");
        write(chart, file);
    }

    /**
     * The comparison of {@code sweeps} as two charts, {@code <stem>-p50.png} and
     * {@code <stem>-p99.png} in {@code dir}: one latency percentile per chart against throughput,
     * both axes logarithmic (the peers span three orders of magnitude of throughput), one line per
     * system, the legend outside the plot.
     */
    public static void comparison(String title, List<SweepResult> sweeps, Path dir, String stem) throws IOException {
        List<SweepCurve> curves = sweeps.stream().map(SweepCurve::of).toList();
        comparisonCurves(title, curves, dir, stem);
    }

    /** {@link #comparison} of curves read back from saved results ({@link SweepCurve#read}). */
    public static void comparisonCurves(String title, List<SweepCurve> curves, Path dir, String stem) throws IOException {
        for (boolean p99 : new boolean[] {false, true}) {
            String percentile = p99 ? "p99" : "p50";
            XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title + ": " + percentile)
                    .xAxisTitle("throughput (ops/s, log)").yAxisTitle(percentile + " latency (ms, log)").build();
            style(chart);
            chart.getStyler().setXAxisLogarithmic(true).setYAxisLogarithmic(true);
            chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE).setLegendLayout(Styler.LegendLayout.Vertical);
            for (int i = 0; i < curves.size(); i++) {
                SweepCurve c = curves.get(i);
                Color color = PALETTE[i % PALETTE.length];
                XYSeries line = chart.addSeries(c.system(), c.throughput(), p99 ? c.p99Ms() : c.p50Ms());
                line.setLineColor(color).setLineStyle(SOLID);
                line.setMarker(SeriesMarkers.CIRCLE).setMarkerColor(color);
            }
            write(chart, dir.resolve(stem + "-" + percentile + ".png"));
        }
    }

    private static XYChart latencyChart(String title) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .xAxisTitle("throughput (ops/s)").yAxisTitle("latency (ms, log)").build();
        style(chart);
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setXAxisMin(0.0);
        return chart;
    }

    private static void addCurves(XYChart chart, SweepResult s, Color color, String prefix) {
        SweepCurve c = SweepCurve.of(s);
        XYSeries hi = chart.addSeries(prefix + "p99", c.throughput(), c.p99Ms());
        hi.setLineColor(color).setLineStyle(SOLID);
        hi.setMarker(SeriesMarkers.CIRCLE).setMarkerColor(color);
        XYSeries mid = chart.addSeries(prefix + "p50", c.throughput(), c.p50Ms());
        mid.setLineColor(color).setLineStyle(DASHED);
        mid.setMarker(SeriesMarkers.SQUARE).setMarkerColor(color);
    }

    private static void style(XYChart chart) {
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS)
                .setLegendLayout(Styler.LegendLayout.Horizontal).setChartBackgroundColor(Color.WHITE)
                .setPlotBackgroundColor(Color.WHITE).setMarkerSize(6);
        chart.getStyler().setPlotGridLinesColor(new Color(225, 225, 225));
        chart.getStyler().setXAxisDecimalPattern("#,##0.###").setYAxisDecimalPattern("#,##0.###");
    }

    private static void write(XYChart chart, Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        if (!ImageIO.write(BitmapEncoder.getBufferedImage(chart), "png", file.toFile())) {
            throw new IOException("no PNG writer in this JVM");
        }
    }
}
