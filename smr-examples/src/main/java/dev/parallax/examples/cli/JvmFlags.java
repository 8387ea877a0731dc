package dev.parallax.examples.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The JVM flags every replica process needs: Chronicle Queue reaches into JDK internals on Java 17
 * and must not send usage analytics. One list, {@code jvm-flags.txt} next to this class, read by
 * the {@code ./parallax} script and by {@link ProcessCluster} for the processes it starts (the
 * build's surefire configuration carries the same flags as {@code chronicle.jvm.args};
 * {@code JvmFlagsTest} checks that the two agree).
 */
final class JvmFlags {
    private JvmFlags() {
    }

    static List<String> replica() {
        try (InputStream in = JvmFlags.class.getResourceAsStream("jvm-flags.txt")) {
            if (in == null) {
                throw new IllegalStateException("jvm-flags.txt is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .map(String::trim).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
