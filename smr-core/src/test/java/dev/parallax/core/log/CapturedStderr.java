package dev.parallax.core.log;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Captures what is printed to {@code System.err} (where slf4j-simple logs) until closed. */
final class CapturedStderr implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    CapturedStderr() {
        System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    }

    String text() {
        System.err.flush();
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        System.setErr(original);
        original.print(text());
    }
}
