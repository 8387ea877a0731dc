package dev.parallax.core.replica;

import dev.parallax.core.session.ClientSessions;

/**
 * The sessions' part of a replica's snapshot body (the {@link ServiceManager}'s format): the session
 * tables (one, or one per worker after a marker), then the broadcast's delivery state as
 * {@code len:4 | bytes}. Stateless; called on the thread that captures or restores.
 */
final class SnapshotSessions {
    private SnapshotSessions() {
    }

    /**
     * The sessions' part of a snapshot body, then the broadcast's delivery state as
     * {@code len:4 | bytes} (read back by {@link #read} and {@link #readDeliveryState}). Runs on the delivery thread, within
     * the ServiceManager's capture: the delivery state is the one as of {@code nextSequence}.
     */
    static void write(java.nio.channels.WritableByteChannel out, ClientSessions[] sessions, boolean perWorker,
                      dev.parallax.core.spi.AtomicBroadcast b) throws java.io.IOException {
        java.io.DataOutputStream d = new java.io.DataOutputStream(
                new java.io.BufferedOutputStream(java.nio.channels.Channels.newOutputStream(out), 64 * 1024));
        if (perWorker) {
            d.writeInt(ServiceManager.PER_WORKER_SESSIONS);
            d.writeInt(sessions.length);
        }
        for (ClientSessions table : sessions) {
            table.writeTo(d);
        }
        byte[] state = b == null ? new byte[0] : java.util.Objects.requireNonNull(b.deliveryState(),
                "AtomicBroadcast.deliveryState() returned null");
        d.writeInt(state.length);
        d.write(state);
        d.flush();
    }

    /** Reads the delivery state written by {@link #write}: none before version 2. */
    static byte[] readDeliveryState(java.io.DataInputStream in, dev.parallax.core.snapshot.SnapshotStore.Snapshot snapshot)
            throws java.io.IOException {
        if (snapshot.version() < 2) {
            return new byte[0];
        }
        int length = in.readInt();
        if (length < 0 || length > snapshot.bodyLength()) {
            throw new java.io.IOException("snapshot " + snapshot.file() + " announces a delivery state of " + length
                    + " bytes in a body of " + snapshot.bodyLength());
        }
        byte[] state = new byte[length];
        in.readFully(state);
        return state;
    }

    /** Reads what {@link #write} wrote: one table, or one per worker after a marker. */
    static void read(java.io.DataInputStream d, dev.parallax.core.snapshot.SnapshotStore.Snapshot snapshot,
                     ClientSessions[] sessions, boolean perWorker) throws java.io.IOException {
        int first = d.readInt();
        if ((first == ServiceManager.PER_WORKER_SESSIONS) != perWorker) {
            throw new java.io.IOException("snapshot " + snapshot.file() + " was taken "
                    + (first == ServiceManager.PER_WORKER_SESSIONS ? "with" : "without") + " per-worker execution (p-smr) and this replica "
                    + (perWorker ? "runs" : "does not run") + " it: restore it with the execution it was taken with");
        }
        if (!perWorker) {
            sessions[0].readFrom(d, first);
            return;
        }
        int tables = d.readInt();
        if (tables != sessions.length) {
            throw new java.io.IOException("snapshot " + snapshot.file() + " was taken with " + tables + " p-smr workers, "
                    + "this replica runs " + sessions.length + ": restore it with the worker count it was taken with");
        }
        for (ClientSessions table : sessions) {
            table.readFrom(d);
        }
    }
}
