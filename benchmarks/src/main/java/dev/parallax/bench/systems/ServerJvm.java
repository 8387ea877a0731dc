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
        String custom = System.getProperty(OPTIONS_PROPERTY);
        if (custom != null && !custom.isBlank()) {
            return List.of(custom.trim().split("[|\\s]+"));
        }
        // One GC thread and a pre-touched heap: four JVMs share two cores here, and the default
        // two parallel GC threads plus first-touch page faults showed up as ~10% system time per JVM.
        return List.of("-Xms2g", "-Xmx2g", "-XX:+UseParallelGC", "-XX:ParallelGCThreads=1", "-XX:+AlwaysPreTouch");
    }
}
