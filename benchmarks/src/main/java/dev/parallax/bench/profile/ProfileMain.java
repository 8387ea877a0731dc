package dev.parallax.bench.profile;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * {@code java -cp benchmarks.jar dev.parallax.bench.profile.ProfileMain FILE.jfr [OUT_DIR]}: prints
 * the CPU share per thread and the hottest methods of a JFR recording, and writes
 * {@code <name>.collapsed} and a {@code <name>.svg} flame graph next to it (or into OUT_DIR).
 */
public final class ProfileMain {
    private ProfileMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: ProfileMain FILE.jfr [OUT_DIR]");
            System.exit(2);
        }
        Path jfr = Path.of(args[0]);
        Path out = args.length > 1 ? Files.createDirectories(Path.of(args[1])) : jfr.toAbsolutePath().getParent();
        String name = jfr.getFileName().toString().replaceAll("\\.jfr$", "");
        StackProfile p = StackProfile.read(jfr);
        System.out.printf("%s: %d CPU samples%n", jfr, p.samples());
        print("by thread", p.byThread());
        print("hottest (self)", p.hottestSelf(25));
        print("hottest (total)", p.hottestTotal(40));
        StringBuilder collapsed = new StringBuilder();
        p.folded().forEach((stack, n) -> collapsed.append(stack).append(' ').append(n).append('\n'));
        Files.writeString(out.resolve(name + ".collapsed"), collapsed, StandardCharsets.UTF_8);
        Files.writeString(out.resolve(name + ".svg"), FlameGraphSvg.render(p.folded(), name), StandardCharsets.UTF_8);
        System.out.println("wrote " + out.resolve(name + ".collapsed") + " and " + out.resolve(name + ".svg"));
    }

    private static void print(String title, Map<String, Double> shares) {
        System.out.println("  " + title + ":");
        shares.forEach((k, v) -> System.out.printf(Locale.ROOT, "    %5.1f%%  %s%n", v * 100, k));
    }
}
