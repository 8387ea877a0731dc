package dev.parallax.scheduler.ssmr;

import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.History;
import dev.parallax.core.check.LinearizabilityChecker;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One seed of {@link SsmrSimulation} with S-SMR caching on ({@link CachedExchange}; seed 004 (S-SMR)
 * §IV-C), shared by the default-run test and the simulations execution's: linearizable, every
 * command finished, and within each partition the same state, finish index and caching state
 * (cache and mirrors). Not thread-safe.
 */
final class SsmrCacheSimulation {
    static final long EVENT_BUDGET = 2_000_000;

    private SsmrCacheSimulation() {
    }

    /** Runs {@code seed} with {@code cache}; returns the checker's result after the agreement checks. */
    static CheckResult run(long seed, SsmrCacheConfig cache, long[] totals) {
        return run(seed, cache, false, totals);
    }

    /**
     * As {@link #run(long, SsmrCacheConfig, long[])}; with {@code forget}, replicas restarted from a
     * snapshot lose their caching state, so their caches are not compared.
     */
    static CheckResult run(long seed, SsmrCacheConfig cache, boolean forget, long[] totals) {
        SsmrSimulation sim = new SsmrSimulation(seed, true);
        sim.cache = cache;
        sim.forgetCaches = forget;
        History<RegistersModel.Op, List<Long>> history = sim.run(EVENT_BUDGET);
        if (!cache.unsafeAlwaysCurrent()) {
            for (SsmrSimulation.Replica[] part : sim.replicas) {
                for (SsmrSimulation.Replica r : part) {
                    assertThat(r.machine.digest(r.partition)).as("digest of replica %d of partition %d", r.index,
                            r.partition).isEqualTo(part[0].machine.digest(r.partition));
                    assertThat(r.adapter.finishIndex()).isEqualTo(part[0].adapter.finishIndex());
                    assertThat(forget ? new byte[0] : cacheBytes(r.adapter)).as("caching state of replica %d of partition %d", r.index,
                            r.partition).isEqualTo(forget ? new byte[0] : cacheBytes(part[0].adapter));
                }
            }
        }
        long[] c = new long[5];
        for (SsmrSimulation.Replica[] part : sim.replicas) {
            for (SsmrSimulation.Replica r : part) {
                SsmrCacheCounters k = r.driver.core().cacheCounters();
                c[0] += k.valuesSent();
                c[1] += k.bottomsSent();
                c[2] += k.misses();
                c[3] += k.malformed();
                c[4] += k.fullAnswered();
            }
        }
        synchronized (totals) {
            for (int i = 0; i < c.length; i++) {
                totals[i] += c[i];
            }
            totals[5] += sim.crashesDone;
            totals[6] += sim.restoredFromSnapshot;
        }
        return LinearizabilityChecker.check(new RegistersModel(sim.partitions), history);
    }

    static String describe(long[] t) {
        return String.format("%d values sent, %d as ⊥, %d misses (full requests), %d malformed, %d full answers, "
                + "%d crashes (%d restarts from a snapshot)", t[0], t[1], t[2], t[3], t[4], t[5], t[6]);
    }

    private static byte[] cacheBytes(SsmrStateMachine adapter) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (DataOutputStream d = new DataOutputStream(b)) {
            adapter.cache().write(d);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Arrays.copyOf(b.toByteArray(), b.size());
    }
}
