package dev.parallax.examples.cli;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The real Redis tools (redis-cli, redis-benchmark from Debian's redis-tools) for tests of the RESP
 * front end. A missing tool fails the test: the build installs them where it can
 * ({@code scripts/ensure-test-tools.sh}, run before the tests), so a
 * silent skip would hide that the front end went untested. Only with
 * {@code -Dparallax.redisTools=optional} (or {@code PARALLAX_REDIS_TOOLS=optional}) is the test
 * skipped instead.
 */
final class RedisTools {
    static final String MODE_PROPERTY = "parallax.redisTools";
    static final String MODE_ENV = "PARALLAX_REDIS_TOOLS";

    private RedisTools() {
    }

    /** Output (stdout and stderr merged) and exit code of a finished tool. */
    record Result(int exitCode, String output) {
        /** The output's lines, line ends normalized. */
        List<String> lines() {
            return output.replace("\r\n", "\n").lines().toList();
        }
    }

    /** The configured mode: {@code required} unless the property or variable says {@code optional}. */
    static String mode() {
        String p = System.getProperty(MODE_PROPERTY);
        if (p == null || p.isBlank()) {
            p = System.getenv(MODE_ENV);
        }
        return p == null || p.isBlank() ? "required" : p.trim();
    }

    /** Fails (or, in optional mode, skips) the calling test unless {@code tool} is on the PATH. */
    static void require(String tool) {
        require(tool, mode());
    }

    static void require(String tool, String mode) {
        if (onPath(tool)) {
            return;
        }
        String why = tool + " is not on the PATH; install redis-tools (scripts/ensure-test-tools.sh, which the build"
                + " runs, installs it as root or with password-less sudo)";
        if ("optional".equalsIgnoreCase(mode)) {
            Assumptions.abort(why + " (skipped: " + MODE_PROPERTY + "=optional)");
        }
        Assertions.fail(why + ", or run with -D" + MODE_PROPERTY + "=optional to skip the Redis-tool tests");
    }

    static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Runs a tool to completion, feeding it {@code stdin} (may be null), and returns its output.
     * Kills it and fails if it runs longer than {@code timeout}.
     */
    static Result run(Duration timeout, byte[] stdin, String... command)
            throws IOException, InterruptedException, ExecutionException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<byte[]> output = CompletableFuture.supplyAsync(() -> {
            try {
                return p.getInputStream().readAllBytes();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try (OutputStream in = p.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin);
            }
        }
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly().waitFor();
            Assertions.fail(String.join(" ", command) + " still ran after " + timeout);
        }
        try {
            return new Result(p.exitValue(), new String(output.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8));
        } catch (TimeoutException e) {
            throw new IOException("output of " + String.join(" ", command) + " not closed", e);
        }
    }
}
