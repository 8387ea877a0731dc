package dev.parallax.bench.systems;


import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The replica JVMs of the systems that run {@code parallax replica} processes
 * ({@link ParallaxSystem}, {@link VolerySystem}): the options every replica JVM gets besides its
 * heap, the optional JFR recording, and the pids the sweep accounts CPU by. Stateless; safe from
 * any thread; only {@link #profiled} touches the file system (it creates the recording directory).
 */
final class ReplicaProcesses {
    /**
     * System property naming a directory: when set, every replica of a {@link ParallaxSystem}
     * records a JFR profile there (one {@code .jfr} file per replica process, written when it exits).
     */
    static final String JFR_PROPERTY = "parallax.bench.jfr";

    private ReplicaProcesses() {
    }

    /** {@code options} with the replicas' logging at WARN, as every benchmarked replica runs. */
    static List<String> quiet(List<String> options) {
        List<String> jvm = new ArrayList<>(options);
        jvm.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        return jvm;
    }

    /**
     * {@code options} with a JFR recording into the directory of {@link #JFR_PROPERTY} (created if
     * missing) when that property is set; else a copy of {@code options}.
     *
     * @throws IOException if the directory cannot be created
     */
    static List<String> profiled(List<String> options) throws IOException {
        List<String> jvm = new ArrayList<>(options);
        String jfr = System.getProperty(JFR_PROPERTY);
        if (jfr != null) {
            Files.createDirectories(Path.of(jfr));
            jvm.add("-XX:StartFlightRecording=settings=profile,filename=" + Path.of(jfr).toAbsolutePath() + "/");
        }
        return jvm;
    }

    /** The pid of every replica of {@code cluster}, by {@code replica-<i>}. */
    static Map<String, Long> pids(ReplicaCluster cluster) {
        Map<String, Long> pids = new LinkedHashMap<>();
        for (int i = 0; i < cluster.size(); i++) {
            pids.put("replica-" + i, cluster.pid(i));
        }
        return pids;
    }
}
