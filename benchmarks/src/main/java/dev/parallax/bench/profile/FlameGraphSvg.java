package dev.parallax.bench.profile;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Draws collapsed stacks as a flame graph in SVG: roots at the bottom, each frame's width its share
 * of samples, children sorted by name (the Brendan Gregg layout). Frames narrower than 0.1% are
 * dropped. Each frame has a tooltip with its name, samples and share. Stateless.
 */
public final class FlameGraphSvg {
    private static final int WIDTH = 1600;
    private static final int ROW = 17;
    private static final double MIN_SHARE = 0.001;

    private FlameGraphSvg() {
    }

    private static final class Node {
        final TreeMap<String, Node> children = new TreeMap<>();
        long samples;
    }

    /** The SVG document for {@code folded} (stack root first, {@code ;}-separated → samples). */
    public static String render(Map<String, Long> folded, String title) {
        Node root = new Node();
        int depth = 0;
        for (Map.Entry<String, Long> e : folded.entrySet()) {
            Node n = root;
            n.samples += e.getValue();
            String[] frames = e.getKey().split(";");
            depth = Math.max(depth, frames.length);
            for (String f : frames) {
                n = n.children.computeIfAbsent(f, k -> new Node());
                n.samples += e.getValue();
            }
        }
        int height = (depth + 3) * ROW;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"monospace\" font-size=\"11\">%n", WIDTH, height));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"14\" font-size=\"14\">%s (%d samples)</text>%n",
                10, escape(title), root.samples));
        if (root.samples > 0) {
            draw(svg, root, "all", 0, WIDTH, height - ROW, root.samples);
        }
        return svg.append("</svg>\n").toString();
    }

    private static void draw(StringBuilder svg, Node node, String name, double x, double w, int y, long total) {
        if (node.samples / (double) total < MIN_SHARE) {
            return;
        }
        int hash = name.hashCode();
        int red = 205 + Math.floorMod(hash, 50);
        int green = 80 + Math.floorMod(hash >> 8, 130);
        svg.append(String.format(Locale.ROOT, "<g><title>%s (%d samples, %.2f%%)</title>"
                        + "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"rgb(%d,%d,60)\" rx=\"2\"/>",
                escape(name), node.samples, 100.0 * node.samples / total, x, y, Math.max(0.5, w - 0.5), ROW - 1, red, green));
        int chars = (int) (w / 7);
        if (chars >= 3) {
            String label = name.length() <= chars ? name : name.substring(0, chars - 2) + "..";
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\">%s</text>", x + 3, y + ROW - 5, escape(label)));
        }
        svg.append("</g>\n");
        double cx = x;
        for (Map.Entry<String, Node> c : node.children.entrySet()) {
            double cw = w * c.getValue().samples / node.samples;
            draw(svg, c.getValue(), c.getKey(), cx, cw, y - ROW, total);
            cx += cw;
        }
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
