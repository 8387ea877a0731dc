package dev.parallax.core.wire.tls;

import dev.parallax.core.config.TlsConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The PEM files of a local cluster's TLS, made by a throwaway {@link CertificateAuthority}
 * ({@code ./parallax certs}, the TLS demo, chaos and bench clusters, tests): in one directory,
 * {@code ca.crt} (the CA certificate; its key is not kept), {@code replica-<i>.crt} and
 * {@code replica-<i>.key} for each replica (named {@code parallax-replica-<i>}, see
 * {@link TlsConfig}), and {@code client.crt} and {@code client.key} (named
 * {@value #CLIENT_IDENTITY}) for clients that want to present one. Every replica certificate also
 * carries the given host names and addresses, for TLS clients that check the host they connected
 * to (Parallax's own clients check the {@code parallax-replica-<i>} name instead). The client
 * certificate carries none and is good for TLS clients only (extended key usage clientAuth, see
 * {@link CertificateAuthority#issueClient}): its key cannot serve a replica's ports.
 *
 * <p>Immutable once generated; {@link #generate} blocks on file I/O.
 */
public final class ClusterCertificates {
    /** Name of the client certificate. */
    public static final String CLIENT_IDENTITY = "parallax-client";
    /** Host names put in every certificate by default: {@code localhost} and {@code 127.0.0.1}. */
    public static final List<String> LOCAL_HOSTS = List.of("localhost", "127.0.0.1");
    /** Default validity of generated certificates: 90 days. */
    public static final Duration DEFAULT_VALIDITY = Duration.ofDays(90);

    private final Path dir;
    private final int replicas;

    private ClusterCertificates(Path dir, int replicas) {
        this.dir = dir;
        this.replicas = replicas;
    }

    /** Certificates for {@code replicas} replicas on this machine, valid {@link #DEFAULT_VALIDITY}. */
    public static ClusterCertificates generate(Path dir, int replicas) throws IOException {
        return generate(dir, replicas, LOCAL_HOSTS, DEFAULT_VALIDITY);
    }

    /**
     * Makes a new CA and writes its certificate, one certificate and key per replica and a client
     * certificate and key into {@code dir} (created if missing; existing files of those names are
     * replaced).
     *
     * @param hosts extra subject-alternative names of every replica certificate (DNS names, IP literals)
     * @throws IllegalArgumentException if {@code replicas < 1}, a host name is malformed or the validity is not positive
     */
    public static ClusterCertificates generate(Path dir, int replicas, List<String> hosts, Duration validity) throws IOException {
        if (replicas < 1) {
            throw new IllegalArgumentException("at least one replica, got " + replicas);
        }
        Objects.requireNonNull(hosts, "hosts");
        Files.createDirectories(dir);
        ClusterCertificates c = new ClusterCertificates(dir, replicas);
        CertificateAuthority ca = CertificateAuthority.create("Parallax throwaway CA", validity);
        ca.writeCertificate(c.ca());
        for (int i = 0; i < replicas; i++) {
            ca.issue(TlsConfig.replicaIdentity(i), hosts, validity).write(c.cert(i), c.key(i));
        }
        ca.issueClient(CLIENT_IDENTITY, validity).write(c.clientCert(), c.clientKey());
        return c;
    }

    /** The files of a set generated earlier into {@code dir} for {@code replicas} replicas (not checked). */
    public static ClusterCertificates in(Path dir, int replicas) {
        return new ClusterCertificates(dir, replicas);
    }

    public Path directory() {
        return dir;
    }

    public int replicas() {
        return replicas;
    }

    /** The CA certificate every party trusts. */
    public Path ca() {
        return dir.resolve("ca.crt");
    }

    /** Replica {@code id}'s certificate. */
    public Path cert(int id) {
        return dir.resolve("replica-" + check(id) + ".crt");
    }

    /** Replica {@code id}'s private key. */
    public Path key(int id) {
        return dir.resolve("replica-" + check(id) + ".key");
    }

    public Path clientCert() {
        return dir.resolve("client.crt");
    }

    public Path clientKey() {
        return dir.resolve("client.key");
    }

    /** Every file of the set. */
    public List<Path> files() {
        List<Path> all = new ArrayList<>(List.of(ca()));
        for (int i = 0; i < replicas; i++) {
            all.add(cert(i));
            all.add(key(i));
        }
        all.add(clientCert());
        all.add(clientKey());
        return all;
    }

    /** Replica {@code id}'s TLS settings with these files: mutual TLS between replicas, and TLS for clients if {@code clientPorts}. */
    public TlsConfig replicaTls(int id, boolean clientPorts) {
        return TlsConfig.builder().replicaPort(true).clientPorts(clientPorts).trust(ca()).identity(cert(id), key(id)).build();
    }

    private int check(int id) {
        if (id < 0 || id >= replicas) {
            throw new IllegalArgumentException("no replica " + id + " among " + replicas);
        }
        return id;
    }
}
