package dev.parallax.core.client;

import dev.parallax.core.config.ClusterMembers;
import io.netty.channel.EventLoopGroup;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Settings of an {@link SmrClient}. Immutable and thread-safe; built with {@link #builder}.
 */
public final class ClientConfig {
    private final ClusterMembers endpoints;
    private final long clientId;
    private final int maxOutstanding;
    private final int maxPending;
    private final Duration retryTimeout;
    private final Duration invokeTimeout;
    private final int maxFrameBytes;
    private final EventLoopGroup eventLoopGroup;
    private final Path tlsTrust;
    private final int startAt;
    private final int readAt;

    private ClientConfig(Builder b) {
        this.endpoints = b.endpoints;
        this.clientId = b.clientId;
        this.maxOutstanding = b.maxOutstanding;
        this.maxPending = b.maxPending;
        this.retryTimeout = b.retryTimeout;
        this.invokeTimeout = b.invokeTimeout;
        this.maxFrameBytes = b.maxFrameBytes;
        this.eventLoopGroup = b.eventLoopGroup;
        this.tlsTrust = b.tlsTrust;
        this.startAt = b.startAt;
        this.readAt = b.readAt;
    }

    /** A builder for a client of the replicas serving clients at {@code endpoints}. */
    public static Builder builder(ClusterMembers endpoints) {
        return new Builder(endpoints);
    }

    public ClusterMembers endpoints() {
        return endpoints;
    }

    public long clientId() {
        return clientId;
    }

    public int maxOutstanding() {
        return maxOutstanding;
    }

    public int maxPending() {
        return maxPending;
    }

    public Duration retryTimeout() {
        return retryTimeout;
    }

    public Duration invokeTimeout() {
        return invokeTimeout;
    }

    public int maxFrameBytes() {
        return maxFrameBytes;
    }

    /** The event loop group to use, or {@code null} for a private one-thread group. */
    public EventLoopGroup eventLoopGroup() {
        return eventLoopGroup;
    }

    /** The CA certificate(s) (PEM) a replica's certificate must chain to; present when the client talks TLS. */
    public Optional<Path> tlsTrust() {
        return Optional.ofNullable(tlsTrust);
    }

    /** The index in {@link #endpoints()} of the replica the client talks to first; default 0. */
    public int startAt() {
        return startAt;
    }

    /** The replica queries go to first ({@code SmrClient.query}); -1: one picked by the client id. */
    public int readAt() {
        return readAt;
    }

    /** Mutable builder, not thread-safe. */
    public static final class Builder {
        private static final SecureRandom RANDOM = new SecureRandom();
        private final ClusterMembers endpoints;
        private long clientId = RANDOM.nextLong() & Long.MAX_VALUE;
        private int maxOutstanding = 1024;
        private int maxPending = 1 << 16;
        private Duration retryTimeout = Duration.ofSeconds(1);
        private Duration invokeTimeout = Duration.ofSeconds(10);
        private int maxFrameBytes = 16 << 20;
        private EventLoopGroup eventLoopGroup;
        private Path tlsTrust;
        private int startAt;
        private int readAt = -1;

        private Builder(ClusterMembers endpoints) {
            this.endpoints = Objects.requireNonNull(endpoints, "endpoints");
        }

        /** The client id, which names its sessions (one per stream); default random. Two live clients must never share one. */
        public Builder clientId(long id) {
            this.clientId = id;
            return this;
        }

        /**
         * Commands sent and not yet answered (pipelining depth), over all the streams (group sets)
         * the client sends to; default 1024. Must not exceed the replicas' reply window (default
         * 1024, kept per (client, stream) session), or retries of old commands cannot be answered.
         */
        public Builder maxOutstanding(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxOutstanding must be >= 1");
            }
            this.maxOutstanding = n;
            return this;
        }

        /** Commands accepted by {@code invoke} and not yet answered, in all; beyond it invoke fails fast. Default 65536. */
        public Builder maxPending(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxPending must be >= 1");
            }
            this.maxPending = n;
            return this;
        }

        /** Silence after which the client tries another replica; default 1 s. */
        public Builder retryTimeout(Duration d) {
            this.retryTimeout = Objects.requireNonNull(d);
            return this;
        }

        /**
         * How long a command may take before its future fails: with {@link OutcomeUnknownException}
         * if it was sent (it stays in flight until answered), with {@link ClusterUnavailableException}
         * if it was not; default 10 s.
         */
        public Builder invokeTimeout(Duration d) {
            this.invokeTimeout = Objects.requireNonNull(d);
            return this;
        }

        /**
         * Largest frame sent or received, framing included; default 16 MiB. Set it to the
         * replicas' {@code maxFrameBytes} so an oversized command fails at once in {@code invoke}
         * instead of being refused by every replica in turn.
         */
        public Builder maxFrameBytes(int n) {
            if (n < 64) {
                throw new IllegalArgumentException("maxFrameBytes must be >= 64, got " + n);
            }
            this.maxFrameBytes = n;
            return this;
        }

        /** Share an event loop group among many clients (a load generator); the client does not shut it down. */
        public Builder eventLoopGroup(EventLoopGroup group) {
            this.eventLoopGroup = group;
            return this;
        }

        /**
         * Talk TLS to the replicas' client ports (their {@code tls.client=on}), trusting the CA
         * certificate(s) in {@code caPem}; default plain TCP. The client presents no certificate;
         * it accepts a replica only if its certificate names it ({@code parallax-replica-<id>},
         * see {@link dev.parallax.core.config.TlsConfig}), whatever host name it was reached by.
         * A handshake not done within twice the retry timeout (at least 1 s) counts as an
         * unreachable replica.
         */
        public Builder tlsTrust(Path caPem) {
            this.tlsTrust = Objects.requireNonNull(caPem, "caPem");
            return this;
        }

        /**
         * The replica the client talks to first, as an index into the endpoints; default 0. Fail-over
         * is unchanged (on to the next endpoint, or where a redirect points). A load spread over the
         * replicas (S-Paxos, seed 002 §IV-A: every replica serves clients and none redirects) gives
         * each client its own starting replica, e.g. {@code startAt(clientNumber % endpoints.size())}.
         *
         * @throws IllegalArgumentException if {@code replicaIndex} is not in {@code [0, endpoints.size())}
         */
        public Builder startAt(int replicaIndex) {
            if (replicaIndex < 0 || replicaIndex >= endpoints.size()) {
                throw new IllegalArgumentException("startAt must be in [0, " + endpoints.size() + "), got " + replicaIndex);
            }
            this.startAt = replicaIndex;
            return this;
        }

        /**
         * The replica this client sends its queries to first ({@code SmrClient.query}); by default
         * the client id modulo the number of replicas, so that clients spread their reads over every
         * replica (read-index answers reads on followers too).
         *
         * @throws IllegalArgumentException if {@code replicaIndex} is not in {@code [0, endpoints.size())}
         */
        public Builder readAt(int replicaIndex) {
            if (replicaIndex < 0 || replicaIndex >= endpoints.size()) {
                throw new IllegalArgumentException("readAt must be in [0, " + endpoints.size() + "), got " + replicaIndex);
            }
            this.readAt = replicaIndex;
            return this;
        }

        public ClientConfig build() {
            return new ClientConfig(this);
        }
    }
}
