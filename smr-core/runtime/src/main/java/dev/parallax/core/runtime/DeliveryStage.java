package dev.parallax.core.runtime;

import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Stage;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Hands decided values to the replica's {@link DeliveryListener} in order; those the
 * {@link ProtocolRuntime.ValueAdapter} maps to {@code null} (no-ops) only as
 * {@link DeliveryListener#skipped}. Tentative values and revocations (speculative execution) go to
 * {@link DeliveryListener#tentative} and {@link DeliveryListener#revoked} in the same order. The listener runs on this
 * stage's thread; when it blocks, the decision queue fills and the protocol stage holds back.
 *
 * <p>Progress: {@link #deliveredBelow()} is the instance after the last decision handled (no-ops
 * included), published for the protocol stage ({@code ProtocolStage.deliveryProgress}); the bytes
 * handed to the listener are counted ({@link #deliveredBytes()}).
 *
 * <p>Threads: one driver thread ({@link Stage} contract); the two readings are thread-safe.
 */
final class DeliveryStage<V> implements Stage {
    private final String name;
    private final BoundedQueue<Decision<V>> queue;
    private final ProtocolRuntime.ValueAdapter<V> values;
    private final DeliveryListener listener;
    private volatile long deliveredBelow;
    /** Told (on this stage's thread) each time {@link #deliveredBelow} grows; set before the stage runs. */
    private Runnable progress = () -> { };
    private final java.util.concurrent.atomic.LongAdder deliveredBytes = new java.util.concurrent.atomic.LongAdder();

    DeliveryStage(String name, BoundedQueue<Decision<V>> queue, ProtocolRuntime.ValueAdapter<V> values,
                  DeliveryListener listener) {
        this.name = name;
        this.queue = queue;
        this.values = values;
        this.listener = listener;
    }

    @Override
    public int doWork() {
        return queue.drain(this::deliver, 256);
    }

    private void deliver(Decision<V> d) {
        if (d.kind() != Decision.DECIDED) {
            speculate(d);
            return;
        }
        ByteBuffer bytes = values.toDelivery(d.instance(), d.value());
        if (bytes == null) {
            listener.skipped(d.instance());
        } else {
            int size = bytes.remaining();
            try {
                listener.deliver(d.instance(), bytes);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            deliveredBytes.add(size);
        }
        if (d.instance() + 1 > deliveredBelow) {
            deliveredBelow = d.instance() + 1;
            progress.run();
        }
    }

    /**
     * A tentative value (its delivery bytes by {@link ProtocolRuntime.ValueAdapter#toDelivery(Object)},
     * which has no side effects; null for a no-op) or a revocation, to the listener.
     */
    private void speculate(Decision<V> d) {
        try {
            if (d.kind() == Decision.REVOKED) {
                listener.revoked(d.instance());
            } else {
                listener.tentative(d.instance(), values.toDelivery(d.value()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs {@code p} on this stage's thread each time the delivered position grows; before the stage runs. */
    void onProgress(Runnable p) {
        this.progress = p;
    }

    /** Every decision below this instance was handed to the listener (or was a no-op). Thread-safe. */
    long deliveredBelow() {
        return deliveredBelow;
    }

    /** Bytes handed to the listener so far. Thread-safe. */
    long deliveredBytes() {
        return deliveredBytes.sum();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<? extends BoundedQueue<?>> inputQueues() {
        return List.of(queue);
    }
}
