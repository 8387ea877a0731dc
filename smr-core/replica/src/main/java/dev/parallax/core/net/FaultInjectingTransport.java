package dev.parallax.core.net;

import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;

import java.util.Objects;

/**
 * A {@link Transport} that loses the messages its {@link LinkFaults} cut, per direction, as a
 * network partition would: what arrives from a peer whose inbound link is blocked is dropped before
 * anyone sees it (the arrival is not stamped either, so the failure detector hears nothing), and
 * what is sent to a peer whose outbound link is blocked never leaves. Otherwise it passes
 * everything through. Datagrams pass through; their inbound cuts apply as for messages.
 * Thread-safe.
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
            if (!faults.isInboundBlocked(from)) {
                handler.onMessage(from, m);
            }
        });
    }

    @Override
    public boolean send(int to, M message) {
        if (faults.isOutboundBlocked(to)) {
            return true; // lost on the wire, as far as the sender can tell
        }
        return inner.send(to, message);
    }

    /**
     * Passes the datagram on: a datagram group has no per-receiver outbound link to cut at the
     * sender; inbound cuts apply at each receiver, whose handler drops what a blocked peer sent.
     */
    @Override
    public boolean sendDatagram(int group, M message) {
        return inner.sendDatagram(group, message);
    }

    /** Passes the change on; the cuts, by id, apply to an added member as to any other. */
    @Override
    public void addMember(int id, String host, int port) {
        inner.addMember(id, host, port);
    }

    @Override
    public void removeMember(int id) {
        inner.removeMember(id);
    }

    @Override
    public void close() {
        inner.close();
    }
}
