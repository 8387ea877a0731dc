package dev.parallax.core.exec;

import dev.parallax.core.runtime.ExecutionProvider;
import dev.parallax.core.spi.Executor;

/**
 * {@code execution=sequential}: each command on the delivering thread, in delivery order, the
 * reference every other executor is checked against (seed 001 (early scheduling) §1). Needs
 * nothing of the service. A {@link java.util.ServiceLoader} service; stateless and thread-safe.
 */
public final class SequentialProvider implements ExecutionProvider {

    @Override
    public String name() {
        return "sequential";
    }

    @Override
    public String summary() {
        return "Each command on the delivering thread, in delivery order: the reference (seed 001 §1).";
    }

    @Override
    public Executor create(Context context) {
        return new SequentialExecutor();
    }
}
