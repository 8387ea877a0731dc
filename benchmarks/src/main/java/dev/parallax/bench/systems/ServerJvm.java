package dev.parallax.bench.systems;

import java.util.List;

/** The JVM options every benchmarked system's servers get alike. Stateless. */
public final class ServerJvm {
    /** System property replacing {@link #options()} (separated by blanks or |), for experiments. */
    public static final String OPTIONS_PROPERTY = "parallax.bench.serverJvm";

    private ServerJvm() {
    }

    /**
     * 2 GiB pre-touched heap, parallel GC with one thread; or the options in the system property
     * {@value #OPTIONS_PROPERTY}.
     */
    public static List<String> options() {
        return options(DEFAULT_HEAP_MIB);
    }

    /** The heap of every server JVM of {@link #options()}: 2 GiB. */
    public static final int DEFAULT_HEAP_MIB = 2048;

    /**
     * {@link #options()} with a heap of {@code heapMiB} MiB instead of 2 GiB (a system of more server
     * JVMs than the others keeps the same total memory); the options of {@value #OPTIONS_PROPERTY},
     * when set, unchanged.
     *
     * @throws IllegalArgumentException if heapMiB &lt; 64
     */
    public static List<String> options(int heapMiB) {
        if (heapMiB < 64) {
            throw new IllegalArgumentException("heap must be >= 64 MiB, not " + heapMiB);
        }
        String custom = System.getProperty(OPTIONS_PROPERTY);
        if (custom != null && !custom.isBlank()) {
            return List.of(custom.trim().split("[|\\s]+"));
        }
        // One GC thread and a pre-touched heap: four JVMs share two cores here, and the default
        // two parallel GC threads plus first-touch page faults showed up as ~10% system time per JVM.
        String heap = heapMiB % 1024 == 0 ? heapMiB / 1024 + "g" : heapMiB + "m";
        return List.of("-Xms" + heap, "-Xmx" + heap, "-XX:+UseParallelGC", "-XX:ParallelGCThreads=1",
                "-XX:+AlwaysPreTouch");
    }
}
