package dev.parallax.core.log;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Captures what is printed to {@code System.err} (where slf4j-simple logs) until closed. Not thread-safe; one test at a time. */
public final class CapturedStderr implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    public CapturedStderr() {
        System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    }

    public String text() {
        System.err.flush();
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        System.setErr(original);
        original.print(text());
    }
}
