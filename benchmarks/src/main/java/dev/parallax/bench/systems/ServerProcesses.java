package dev.parallax.bench.systems;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Server JVMs of a benchmarked system: each runs a main class from this JVM's class path, writes
 * its output to {@code <name>.log} in the work directory and announces readiness by printing a line
 * that starts with {@code READY}. Owned by one thread; {@link #close} stops every process.
 */
public final class ServerProcesses implements AutoCloseable {
    private static final Pattern READY = Pattern.compile("(?m)^READY\\b.*$");

    private final Path dir;
    private final List<String> jvmOptions;
    private final Map<String, Process> processes = new LinkedHashMap<>();

    /**
     * @param dir        where logs go (created if missing)
     * @param jvmOptions options for every server JVM (heap, GC)
     */
    public ServerProcesses(Path dir, List<String> jvmOptions) throws IOException {
        this.dir = Files.createDirectories(dir);
        this.jvmOptions = List.copyOf(jvmOptions);
    }

    /** System property replacing {@link #defaultJvmOptions()} (separated by blanks or |), for experiments. */
    public static final String JVM_OPTIONS_PROPERTY = "parallax.bench.serverJvm";

    /**
     * Server JVM options for every system of the comparisons alike: 2 GiB pre-touched heap, parallel
     * GC with one thread; or the
     * options in the system property {@value #JVM_OPTIONS_PROPERTY}.
     */
    public static List<String> defaultJvmOptions() {
        String custom = System.getProperty(JVM_OPTIONS_PROPERTY);
        if (custom != null && !custom.isBlank()) {
            return List.of(custom.trim().split("[|\\s]+"));
        }
        // One GC thread and a pre-touched heap: four JVMs share two cores here, and the default
        // two parallel GC threads plus first-touch page faults showed up as ~10% system time per JVM.
        return List.of("-Xms2g", "-Xmx2g", "-XX:+UseParallelGC", "-XX:ParallelGCThreads=1", "-XX:+AlwaysPreTouch");
    }

    /**
     * Starts {@code mainClass} with {@code args} as process {@code name} (does not wait).
     *
     * @throws IOException if the JVM cannot be started
     */
    public void launch(String name, Class<?> mainClass, List<String> args) throws IOException {
        Path log = log(name);
        Files.deleteIfExists(log);
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass.getName());
        cmd.addAll(args);
        processes.put(name, new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start());
    }

    /**
     * Blocks until process {@code name} printed its {@code READY} line, and returns that line.
     *
     * @throws IOException if the process exits first or stays silent past {@code timeout}
     */
    public String awaitReady(String name, Duration timeout) throws IOException, InterruptedException {
        Process p = processes.get(name);
        if (p == null) {
            throw new IllegalArgumentException("no process " + name);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        Path log = log(name);
        while (System.nanoTime() < deadline) {
            String text = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
            Matcher m = READY.matcher(text);
            if (m.find()) {
                return m.group();
            }
            if (!p.isAlive()) {
                throw new IOException(name + " exited with " + p.exitValue() + " before it was ready; see " + log);
            }
            Thread.sleep(20);
        }
        throw new IOException(name + " not ready after " + timeout + "; see " + log);
    }

    /** Where process {@code name} writes its output. */
    public Path log(String name) {
        return dir.resolve(name + ".log");
    }

    /** Name to pid of every process launched. */
    public Map<String, Long> pids() {
        Map<String, Long> pids = new LinkedHashMap<>();
        processes.forEach((k, p) -> pids.put(k, p.pid()));
        return pids;
    }

    /** Stops every process: SIGTERM, then SIGKILL after 5 s. */
    @Override
    public void close() {
        processes.values().forEach(p -> {
            if (p.isAlive()) {
                p.destroy();
            }
        });
        for (Process p : processes.values()) {
            try {
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
    }
}
