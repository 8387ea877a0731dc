package dev.parallax.examples.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Server JVMs on this machine (the replicas of a {@code parallax demo} or {@code chaos} cluster, a
 * benchmark's replicas and peer systems):
 * each runs a main class from this JVM's class path, writes its output to {@code <name>.log} in the
 * work directory and announces readiness by printing a line that starts with {@code READY} (as
 * {@code parallax replica} does once its ports are open, and the peers' mains here). Owned by one
 * thread; {@link #close} stops every process.
 */
public final class ServerProcesses implements AutoCloseable {
    private static final Pattern READY = Pattern.compile("(?m)^READY\\b.*$");

    private final Path dir;
    private final List<String> jvmOptions;
    private final Map<String, Process> processes = new LinkedHashMap<>();

    /**
     * @param dir        where logs go (created if missing)
     * @param jvmOptions options for every server JVM (heap, GC, module flags)
     */
    public ServerProcesses(Path dir, List<String> jvmOptions) throws IOException {
        this.dir = Files.createDirectories(dir);
        this.jvmOptions = List.copyOf(jvmOptions);
    }

    /**
     * Starts {@code mainClass} with {@code args} as process {@code name} (does not wait).
     *
     * @throws IOException if the JVM cannot be started
     */
    public void launch(String name, Class<?> mainClass, List<String> args) throws IOException {
        launch(name, mainClass.getName(), args);
    }

    /**
     * Starts the main class named {@code mainClass} (on this JVM's class path) with {@code args} as
     * process {@code name} (does not wait).
     *
     * @throws IOException if the JVM cannot be started
     */
    public void launch(String name, String mainClass, List<String> args) throws IOException {
        launch(name, mainClass, args, List.of());
    }

    /**
     * As {@link #launch(String, String, List)}, the JVM's command line after {@code wrapper} (for
     * example {@code ip netns exec plx-h1}: a test-bed host; the wrapper must exec the JVM in its
     * place, so that the process killed is the JVM).
     *
     * @throws IOException if the JVM cannot be started
     */
    public void launch(String name, String mainClass, List<String> args, List<String> wrapper) throws IOException {
        Path log = log(name);
        Files.deleteIfExists(log);
        List<String> cmd = new ArrayList<>(wrapper);
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
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
                throw new IOException(name + " exited with " + p.exitValue() + " before it was ready; see " + log
                        + "; its last lines:\n" + tail(text, 15));
            }
            Thread.sleep(20);
        }
        throw new IOException(name + " not ready after " + timeout + "; see " + log);
    }

    private static String tail(String text, int lines) {
        String[] all = text.split("\n");
        return String.join("\n", Arrays.copyOfRange(all, Math.max(0, all.length - lines), all.length));
    }

    /** Where process {@code name} writes its output. */
    public Path log(String name) {
        return dir.resolve(name + ".log");
    }

    /** SIGKILLs process {@code name} (if running) and waits for it to die. */
    public void kill(String name) throws InterruptedException {
        Process p = processes.get(name);
        if (p != null && p.isAlive()) {
            p.destroyForcibly();
            p.waitFor();
        }
    }

    /** Whether process {@code name} was launched and still runs. */
    public boolean isAlive(String name) {
        Process p = processes.get(name);
        return p != null && p.isAlive();
    }

    /** The operating-system pid of process {@code name}, or -1 if it was never launched. */
    public long pid(String name) {
        Process p = processes.get(name);
        return p == null ? -1 : p.pid();
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
