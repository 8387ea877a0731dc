package dev.parallax.core.net;

import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;

import java.util.Objects;

/**
 * A {@link Transport} that loses every message to or from the peers its {@link LinkFaults}
 * block, as a network partition would; otherwise it passes everything through. Thread-safe.
 */
public final class FaultInjectingTransport<M> implements Transport<M> {
    private final Transport<M> inner;
    private final LinkFaults faults;

    public FaultInjectingTransport(Transport<M> inner, LinkFaults faults) {
        this.inner = Objects.requireNonNull(inner);
        this.faults = Objects.requireNonNull(faults);
    }

    @Override
    public int localId() {
        return inner.localId();
    }

    @Override
    public void start(MessageHandler<M> handler) {
        inner.start((from, m) -> {
            if (!faults.isBlocked(from)) {
                handler.onMessage(from, m);
            }
        });
    }

    @Override
    public boolean send(int to, M message) {
        if (faults.isBlocked(to)) {
            return true; // lost on the wire, as far as the sender can tell
        }
        return inner.send(to, message);
    }

    @Override
    public void close() {
        inner.close();
    }
}
