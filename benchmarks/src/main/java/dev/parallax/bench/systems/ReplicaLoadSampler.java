package dev.parallax.bench.systems;

import dev.parallax.bench.profile.StageSampler;
import dev.parallax.bench.profile.ThreadCpu;

import java.io.IOException;
import java.util.Locale;

/**
 * Where the replicas' time went during one measured period: the ordering leader's stage meters
 * (busy ratio, input queue depths) sampled once a second, and every replica's per-thread CPU time
 * and context switches between {@link #start} and {@link #finish}. The leader is the replica whose
 * metrics say it leads ({@link ReplicaCluster#leader()}), replica 0 if none does.
 *
 * <p>One owner thread calls {@link #start} and then {@link #finish} once; the sampling runs on a
 * daemon thread of its own ({@code stage-sampler}) between the two. {@link #start} blocks only for
 * the leader query and the thread snapshots; {@link #finish} blocks for the sampler thread to stop
 * (up to 5 s) and one last sample.
 */
final class ReplicaLoadSampler {
    private static final long SAMPLE_INTERVAL_MS = 1000;

    private final ReplicaCluster cluster;
    private final int leader;
    private final StageSampler sampler;
    private final ThreadCpu[] threadsBefore;
    private final Thread thread;
    private volatile String samplerError;

    private ReplicaLoadSampler(ReplicaCluster cluster) {
        this.cluster = cluster;
        this.leader = Math.max(0, cluster.leader());
        this.sampler = new StageSampler(cluster.metricsHost(leader), cluster.metricsPort(leader));
        this.threadsBefore = new ThreadCpu[cluster.size()];
        for (int i = 0; i < threadsBefore.length; i++) {
            threadsBefore[i] = ThreadCpu.snapshot(cluster.pid(i));
        }
        this.thread = new Thread(this::sampleUntilInterrupted, "stage-sampler");
        thread.setDaemon(true);
    }

    /** Snapshots every replica's threads and starts sampling the leader's stages once a second. */
    static ReplicaLoadSampler start(ReplicaCluster cluster) {
        ReplicaLoadSampler s = new ReplicaLoadSampler(cluster);
        s.thread.start();
        return s;
    }

    private void sampleUntilInterrupted() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                sampler.sample();
                Thread.sleep(SAMPLE_INTERVAL_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            samplerError = e.toString();
        }
    }

    /**
     * Stops sampling and reports the leader's per-stage busy ratio and queue depths and every
     * replica's per-thread CPU over the period (threads under 10 ms of CPU left out).
     */
    String finish() {
        thread.interrupt();
        try {
            thread.join(5000);
            sampler.sample();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            samplerError = e.toString();
        }
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "leader (replica %d) stages: busy ratio, input queue depth mean/max%n", leader));
        for (StageSampler.StageLoad l : sampler.loads()) {
            sb.append(String.format(Locale.ROOT, "  %-22s busy %5.1f%%", l.stage(), 100 * l.busyRatio()));
            l.queueDepthMeanMax().forEach((q, mm) -> sb.append(String.format(Locale.ROOT, "  q%s %.0f/%.0f", q, mm[0], mm[1])));
            sb.append(System.lineSeparator());
        }
        if (samplerError != null) {
            sb.append("  (stage sampling failed: ").append(samplerError).append(')').append(System.lineSeparator());
        }
        for (int i = 0; i < threadsBefore.length; i++) {
            sb.append(String.format("replica %d%s threads: CPU seconds user/sys, context switches voluntary/involuntary%n", i,
                    i == leader ? " (leader)" : ""));
            for (ThreadCpu.Usage u : ThreadCpu.snapshot(cluster.pid(i)).since(threadsBefore[i])) {
                if (u.cpuSeconds() >= 0.01) {
                    sb.append(String.format(Locale.ROOT, "  %-22s %6.2f / %6.2f   %,9d / %,9d%n", u.threads(),
                            u.userSeconds(), u.systemSeconds(), u.voluntarySwitches(), u.involuntarySwitches()));
                }
            }
        }
        return sb.toString();
    }
}
