package dev.parallax.core.runtime;

import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Stage;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Hands decided values to the replica's {@link DeliveryListener} in order, skipping those the
 * {@link ProtocolRuntime.ValueAdapter} maps to {@code null} (no-ops). The listener runs on this
 * stage's thread; when it blocks, the decision queue fills and the protocol stage holds back.
 *
 * <p>Threads: one driver thread ({@link Stage} contract).
 */
final class DeliveryStage<V> implements Stage {
    private final String name;
    private final BoundedQueue<ProtocolRuntime.Decision<V>> queue;
    private final ProtocolRuntime.ValueAdapter<V> values;
    private final DeliveryListener listener;

    DeliveryStage(String name, BoundedQueue<ProtocolRuntime.Decision<V>> queue, ProtocolRuntime.ValueAdapter<V> values,
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

    private void deliver(ProtocolRuntime.Decision<V> d) {
        ByteBuffer bytes = values.toDelivery(d.value());
        if (bytes == null) {
            return;
        }
        try {
            listener.deliver(d.instance(), bytes);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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
