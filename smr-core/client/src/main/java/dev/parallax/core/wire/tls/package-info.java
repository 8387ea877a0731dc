/**
 * TLS for the replica, client and Redis ports: SSL contexts from the PEM files a
 * {@link dev.parallax.core.config.TlsConfig} names ({@link dev.parallax.core.wire.tls.TlsContexts}),
 * the identity rule ({@link dev.parallax.core.wire.tls.PeerIdentity}), the pipeline handler that
 * refuses and counts failed handshakes and wrong identities ({@link dev.parallax.core.wire.tls.TlsGate}),
 * and a throwaway certificate authority for local clusters and tests
 * ({@link dev.parallax.core.wire.tls.CertificateAuthority}, {@link dev.parallax.core.wire.tls.ClusterCertificates}).
 */
package dev.parallax.core.wire.tls;
