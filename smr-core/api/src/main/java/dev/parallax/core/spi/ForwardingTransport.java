package dev.parallax.core.spi;

import java.util.Objects;

/**
 * A {@link Transport} that passes every call to another one: the base of a transport that changes
 * one thing (drops what a fault cuts, addresses new members, owns the port under a channel) and
 * forwards the rest. A subclass overrides what it changes.
 *
 * <p>Threads: as the transport it wraps.
 */
public abstract class ForwardingTransport<M> implements Transport<M> {
    /** The transport calls go to. */
    protected final Transport<M> delegate;

    protected ForwardingTransport(Transport<M> delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public int localId() {
        return delegate.localId();
    }

    @Override
    public void start(MessageHandler<M> handler) {
        delegate.start(handler);
    }

    @Override
    public void start(MessageHandler<M> handler, ArrivalStamps stamps) {
        delegate.start(handler, stamps);
    }

    @Override
    public boolean send(int to, M message) {
        return delegate.send(to, message);
    }

    @Override
    public boolean sendDatagram(int group, M message) {
        return delegate.sendDatagram(group, message);
    }

    @Override
    public void addMember(int id, String host, int port) {
        delegate.addMember(id, host, port);
    }

    @Override
    public void removeMember(int id) {
        delegate.removeMember(id);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
