package dev.parallax.core.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a command line to its end for a test (the test bed's script, a CLI in a JVM of its own):
 * its output and standard error go to a temporary file, read when it exits. Stateless and
 * thread-safe; every method blocks the calling thread.
 */
public final class Commands {

    /** What a command did: its exit code and its output (standard output and error interleaved). */
    public record Run(int code, String output) {
    }

    private Commands() {
    }

    /**
     * Runs {@code command} with {@code env} added to this process's environment.
     *
     * @throws AssertionError if it is still running after {@code timeout} (it is killed; its output so far in the message)
     * @throws IOException if it cannot start
     * @throws InterruptedException if interrupted while waiting (it is killed)
     */
    public static Run run(List<String> command, Map<String, String> env, Duration timeout)
            throws IOException, InterruptedException {
        ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true);
        b.environment().putAll(env);
        Path log = Files.createTempFile("parallax-command-", ".log");
        b.redirectOutput(log.toFile());
        Process p = b.start();
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor();
                throw new AssertionError(String.join(" ", command) + " still running after " + timeout + ":\n"
                        + Files.readString(log, StandardCharsets.UTF_8));
            }
            return new Run(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            p.destroyForcibly();
            throw e;
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /**
     * The file {@code relative} (e.g. {@code scripts/testbed.sh}) in the working directory or the
     * nearest directory above it that has it: a module's tests find the project's scripts.
     *
     * @throws AssertionError if no directory above has it
     */
    public static Path above(String relative) {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve(relative))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new AssertionError(relative + " is in no directory above " + Path.of("").toAbsolutePath());
        }
        return p.resolve(relative);
    }
}
