package dev.parallax.core.config;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * One replica of a cluster: its id and the address its replica port listens on.
 *
 * <p>Immutable and thread-safe.
 *
 * @param id   the replica id, {@code 0 <= id < n} for the cluster file's members, up to {@link #MAX_ID}
 *             for a replica a membership change added
 * @param host host name or IP literal (IPv6 without brackets)
 * @param port TCP port, 1..65535
 */
public record Member(int id, String host, int port) {
    /**
     * The highest replica id: the cluster file's members are {@code 0..n-1}, and a membership change
     * may add replicas with further ids up to this one (ids are the bits of a 32-bit set).
     */
    public static final int MAX_ID = 31;

    /** @throws IllegalArgumentException if a field is out of range */
    public Member {
        if (id < 0) {
            throw new IllegalArgumentException("member id must be >= 0, got " + id);
        }
        Objects.requireNonNull(host, "host");
        if (host.isBlank()) {
            throw new IllegalArgumentException("member " + id + ": host is empty");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("member " + id + ": port must be 1..65535, got " + port);
        }
    }

    /** An unresolved socket address (resolution happens when connecting). */
    public InetSocketAddress address() {
        return InetSocketAddress.createUnresolved(host, port);
    }

    /** {@code id=host:port}, with IPv6 literals in brackets: the form {@link ClusterMembers#parse} reads. */
    @Override
    public String toString() {
        return id + "=" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
