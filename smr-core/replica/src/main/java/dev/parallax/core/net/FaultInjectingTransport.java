package dev.parallax.core.net;

import dev.parallax.core.spi.ArrivalStamps;
import dev.parallax.core.spi.ForwardingTransport;
import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;

import java.util.Objects;

/**
 * A {@link Transport} that loses the messages its {@link LinkFaults} cut, per direction, as a
 * network partition would: what arrives from a peer whose inbound link is blocked is dropped before
 * anyone sees it (the arrival is not stamped either, so the failure detector hears nothing), and
 * what is sent to a peer whose outbound link is blocked never leaves. Otherwise it passes
 * everything through. Datagrams pass through (a datagram group has no per-receiver outbound link to
 * cut at the sender); their inbound cuts apply at each receiver as for messages. Membership changes
 * pass through; the cuts, by id, apply to an added member as to any other.
 * Thread-safe.
 */
public final class FaultInjectingTransport<M> extends ForwardingTransport<M> {
    private final LinkFaults faults;

    public FaultInjectingTransport(Transport<M> inner, LinkFaults faults) {
        super(inner);
        this.faults = Objects.requireNonNull(faults);
    }

    @Override
    public void start(MessageHandler<M> handler) {
        delegate.start((from, m) -> {
            if (!faults.isInboundBlocked(from)) {
                handler.onMessage(from, m);
            }
        });
    }

    /** Stamps what passes the inbound cuts only: a blocked peer is not heard by the detector either. */
    @Override
    public void start(MessageHandler<M> handler, ArrivalStamps stamps) {
        start((from, m) -> {
            stamps.heard(from);
            handler.onMessage(from, m);
        });
    }

    @Override
    public boolean send(int to, M message) {
        if (faults.isOutboundBlocked(to)) {
            return true; // lost on the wire, as far as the sender can tell
        }
        return delegate.send(to, message);
    }
}
