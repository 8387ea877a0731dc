package dev.parallax.dist;

import org.junit.jupiter.api.Assertions;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What the distribution tests share: the paths the build passes in (the tarball, the image, the
 * work directory), the tarball unpacked once, and running a command to completion. Static and
 * thread-safe; {@link #run} and {@link #tarballHome} block the calling thread.
 */
final class Dist {
    private static Path unpacked;

    private Dist() {
    }

    /** A finished command: exit code and its stdout and stderr merged. */
    record Result(int exitCode, String output) {
        /** Fails unless the command exited 0, quoting its output. */
        Result ok(String what) {
            Assertions.assertEquals(0, exitCode, () -> what + " exited " + exitCode + ":\n" + output);
            return this;
        }
    }

    static Path path(String property) {
        String p = System.getProperty(property);
        Assertions.assertNotNull(p, () -> "system property " + property + " is not set (run the tests through Maven: "
                + "mvn verify -pl smr-examples/dist)");
        return Path.of(p);
    }

    static String version() {
        return System.getProperty("dist.version", "0.1.0-SNAPSHOT");
    }

    /** A fresh directory under target/it. */
    static Path workDir(String name) throws IOException {
        Path dir = path("dist.work").resolve(name);
        run(Duration.ofSeconds(60), null, "rm", "-rf", dir.toString()).ok("rm -rf " + dir);
        return Files.createDirectories(dir);
    }

    /** The tarball unpacked (once per JVM) under target/it: its parallax-&lt;version&gt; directory. */
    static synchronized Path tarballHome() throws IOException {
        if (unpacked == null) {
            Path tarball = path("dist.tarball");
            Assertions.assertTrue(Files.isRegularFile(tarball), () -> tarball + " is missing: the package phase builds it");
            Path dir = workDir("tarball");
            run(Duration.ofSeconds(120), null, "tar", "-xzf", tarball.toString(), "-C", dir.toString()).ok("tar -xzf");
            unpacked = dir.resolve("parallax-" + version());
        }
        return unpacked;
    }

    /** True if {@code tool} is an executable on the PATH. */
    static boolean onPath(String tool) {
        return which(tool) != null;
    }

    /** The path of {@code tool} on the PATH, or null. */
    static String which(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return Path.of(dir, tool).toString();
            }
        }
        return null;
    }

    static boolean root() {
        try {
            return run(Duration.ofSeconds(10), null, "id", "-u").output().trim().equals("0");
        } catch (IOException e) {
            return false;
        }
    }

    static Result run(Duration timeout, Path dir, String... command) throws IOException {
        return run(timeout, dir, Map.of(), List.of(command));
    }

    /**
     * Runs {@code command} in {@code dir} (null: the current one) with {@code env} added to this
     * JVM's environment, to completion; kills it and fails the test if it outlives {@code timeout}.
     */
    static Result run(Duration timeout, Path dir, Map<String, String> env, List<String> command) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        if (dir != null) {
            pb.directory(dir.toFile());
        }
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> {
            try {
                return p.getInputStream().readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly().waitFor();
                Assertions.fail(String.join(" ", command) + " still ran after " + timeout);
            }
            return new Result(p.exitValue(), new String(out.get(30, TimeUnit.SECONDS), StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted while " + String.join(" ", command) + " ran", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("output of " + String.join(" ", command) + " not read", e);
        }
    }
}
