package dev.parallax.examples.cli;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;

/**
 * The JVM and process meters of a replica process, from Micrometer's binders: heap and other
 * memory pools ({@code jvm_memory_*}), garbage collection ({@code jvm_gc_*}), threads
 * ({@code jvm_threads_*}), loaded classes, CPU ({@code process_cpu_usage},
 * {@code system_cpu_usage}), uptime ({@code process_uptime_seconds}) and open file descriptors
 * ({@code process_files_open_files}). Bound once per process, in the registry its replica and
 * front ends share.
 *
 * <p>{@link #bind} is thread-safe; {@link #close} stops the garbage collection listener.
 */
final class ProcessMeters implements AutoCloseable {
    private final JvmGcMetrics gc;

    private ProcessMeters(JvmGcMetrics gc) {
        this.gc = gc;
    }

    /** Binds every JVM and process binder to {@code registry}. */
    static ProcessMeters bind(MeterRegistry registry) {
        new JvmMemoryMetrics().bindTo(registry);
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        return new ProcessMeters(gc);
    }

    @Override
    public void close() {
        gc.close();
    }
}
