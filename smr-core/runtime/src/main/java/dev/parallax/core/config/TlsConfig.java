package dev.parallax.core.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * TLS settings of one replica: whether its replica port runs mutual TLS, whether
 * its client-facing ports (the client port, and the Redis port of the examples) run TLS, and the
 * PEM files it needs for that — the trusted CA certificate(s), and this replica's own certificate
 * chain and unencrypted PKCS#8 private key.
 *
 * <p><b>Identity rule.</b> A replica's certificate names it {@code parallax-replica-<id>}
 * ({@link #replicaIdentity}) as its subject CN or a DNS subject-alternative name. With
 * {@link #replicaPort()} on, both ends of every replica-to-replica connection present their
 * certificate and check the other's against the CA; the accepting replica then requires the
 * peer's certificate to name the replica id its HELLO announces, and the connecting replica
 * requires the accepting one's to name the replica it meant to reach. Host names are not checked:
 * the certificate name is the identity. Clients check the replica they reached the same way.
 *
 * <p>Defaults: {@link #OFF} (plain TCP everywhere, no files); a handshake must complete within
 * {@value #DEFAULT_HANDSHAKE_TIMEOUT_MILLIS} ms or the connection is closed. Immutable and
 * thread-safe; built with {@link #builder()}. The builder checks that the files are named when
 * TLS is on, not that they exist: a cluster file shared by every replica names each replica's
 * key, which only that replica's machine holds ({@code ClusterFile} checks the files of the
 * replica being started, and loading them reports a missing or malformed one by path).
 */
public final class TlsConfig {
    /** Default {@link Builder#handshakeTimeout}: 10 s. */
    public static final long DEFAULT_HANDSHAKE_TIMEOUT_MILLIS = 10_000;
    /** Plain TCP on every port. */
    public static final TlsConfig OFF = builder().build();
    private static final String IDENTITY_PREFIX = "parallax-replica-";

    private final boolean replicaPort;
    private final boolean clientPorts;
    private final Path caFile;
    private final Path certFile;
    private final Path keyFile;
    private final Duration handshakeTimeout;

    private TlsConfig(Builder b) {
        this.replicaPort = b.replicaPort;
        this.clientPorts = b.clientPorts;
        this.caFile = b.caFile;
        this.certFile = b.certFile;
        this.keyFile = b.keyFile;
        this.handshakeTimeout = b.handshakeTimeout;
    }

    /** A builder with TLS off everywhere. */
    public static Builder builder() {
        return new Builder();
    }

    /** The certificate name of replica {@code id}: {@code parallax-replica-<id>}. */
    public static String replicaIdentity(int id) {
        if (id < 0) {
            throw new IllegalArgumentException("replica id must be >= 0, got " + id);
        }
        return IDENTITY_PREFIX + id;
    }

    /** Mutual TLS on the replica port ({@code tls.replica=required}). */
    public boolean replicaPort() {
        return replicaPort;
    }

    /** TLS (server certificate only, no client certificate asked) on the client-facing ports ({@code tls.client=on}). */
    public boolean clientPorts() {
        return clientPorts;
    }

    /** Whether any port runs TLS. */
    public boolean enabled() {
        return replicaPort || clientPorts;
    }

    /** The trusted CA certificate(s), PEM; present when {@link #enabled()}. */
    public Optional<Path> caFile() {
        return Optional.ofNullable(caFile);
    }

    /** This replica's certificate (chain), PEM, leaf first; present when {@link #enabled()}. */
    public Optional<Path> certFile() {
        return Optional.ofNullable(certFile);
    }

    /** This replica's private key, unencrypted PKCS#8 PEM ({@code BEGIN PRIVATE KEY}); present when {@link #enabled()}. */
    public Optional<Path> keyFile() {
        return Optional.ofNullable(keyFile);
    }

    /** How long a TLS handshake may take before the connection is closed. */
    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    @Override
    public String toString() {
        if (!enabled()) {
            return "TlsConfig{off}";
        }
        return "TlsConfig{replicaPort=" + (replicaPort ? "mutual" : "off") + ", clientPorts=" + (clientPorts ? "on" : "off")
                + ", ca=" + caFile + ", cert=" + certFile + ", key=" + keyFile + ", handshakeTimeout=" + handshakeTimeout + "}";
    }

    /** Mutable builder; not thread-safe. Setters validate their argument at once. */
    public static final class Builder {
        private boolean replicaPort;
        private boolean clientPorts;
        private Path caFile;
        private Path certFile;
        private Path keyFile;
        private Duration handshakeTimeout = Duration.ofMillis(DEFAULT_HANDSHAKE_TIMEOUT_MILLIS);

        private Builder() {
        }

        /** Mutual TLS on the replica port; default off. Needs {@link #trust} and {@link #identity}. */
        public Builder replicaPort(boolean on) {
            this.replicaPort = on;
            return this;
        }

        /** TLS on the client port (and the Redis port); default off. Needs {@link #trust} and {@link #identity}. */
        public Builder clientPorts(boolean on) {
            this.clientPorts = on;
            return this;
        }

        /** The CA certificate(s) every peer's certificate must chain to, PEM. */
        public Builder trust(Path caPem) {
            this.caFile = Objects.requireNonNull(caPem, "caPem");
            return this;
        }

        /** This replica's certificate chain and unencrypted PKCS#8 key, PEM. */
        public Builder identity(Path certPem, Path keyPem) {
            this.certFile = Objects.requireNonNull(certPem, "certPem");
            this.keyFile = Objects.requireNonNull(keyPem, "keyPem");
            return this;
        }

        /** How long a handshake may take; default {@value TlsConfig#DEFAULT_HANDSHAKE_TIMEOUT_MILLIS} ms. */
        public Builder handshakeTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "handshakeTimeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("handshakeTimeout must be positive, got " + timeout);
            }
            this.handshakeTimeout = timeout;
            return this;
        }

        /** @throws IllegalArgumentException if a port runs TLS and a file is not named */
        public TlsConfig build() {
            if (replicaPort || clientPorts) {
                if (caFile == null) {
                    throw new IllegalArgumentException("TLS is on but no CA certificate is named (trust)");
                }
                if (certFile == null || keyFile == null) {
                    throw new IllegalArgumentException("TLS is on but this replica's certificate and key are not named (identity)");
                }
            }
            return new TlsConfig(this);
        }
    }
}
