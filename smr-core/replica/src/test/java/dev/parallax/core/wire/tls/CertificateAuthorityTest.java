package dev.parallax.core.wire.tls;

import dev.parallax.core.config.TlsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The throwaway CA: its certificates are X.509 v3 that the JDK's own PKIX validator accepts under
 * the CA, carry the names, key usages and validity asked for, and round-trip through PEM files
 * with their keys; a set for a cluster names each replica by the identity rule.
 */
class CertificateAuthorityTest {

    @Test
    void issuedCertificatesValidateUnderTheCaWithTheNamesAskedFor() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("Test CA", Duration.ofDays(2));
        CertificateAuthority.Issued leaf = ca.issue("parallax-replica-4", List.of("db4.example", "10.1.2.3", "::1"), Duration.ofDays(1));
        X509Certificate cert = leaf.certificate();

        assertThat(cert.getVersion()).isEqualTo(3);
        assertThat(cert.getIssuerX500Principal()).isEqualTo(ca.certificate().getSubjectX500Principal());
        assertThat(ca.certificate().getBasicConstraints()).as("the CA is a CA").isGreaterThanOrEqualTo(0);
        assertThat(cert.getBasicConstraints()).as("a leaf is not").isEqualTo(-1);
        assertThat(cert.getExtendedKeyUsage()).containsExactlyInAnyOrder("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
        assertThat(cert.getKeyUsage()[0]).as("digitalSignature").isTrue();
        assertThat(ca.certificate().getKeyUsage()[5]).as("keyCertSign").isTrue();
        assertThat(PeerIdentity.names(cert)).containsExactly("parallax-replica-4", "db4.example");
        assertThat(cert.getSubjectAlternativeNames()).anyMatch(n -> n.get(0).equals(7) && n.get(1).equals("10.1.2.3"));
        InetAddress loopback6 = InetAddress.getByName("::1");
        assertThat(cert.getSubjectAlternativeNames()).anyMatch(n -> n.get(0).equals(7) && sameAddress((String) n.get(1), loopback6));
        assertThat(cert.getNotAfter().getTime() - System.currentTimeMillis()).isBetween(
                Duration.ofHours(23).toMillis(), Duration.ofDays(1).toMillis());

        PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(ca.certificate(), null)));
        params.setRevocationEnabled(false);
        CertPathValidator.getInstance("PKIX").validate(
                CertificateFactory.getInstance("X.509").generateCertPath(List.of(cert)), params);
        assertThat(signs(leaf.key(), cert)).as("the key belongs to the certificate").isTrue();
    }

    @Test
    void twoThrowawayCasNeverShareANameAndDoNotValidateEachOthersCertificates() throws Exception {
        CertificateAuthority a = CertificateAuthority.create("Test CA", Duration.ofDays(1));
        CertificateAuthority b = CertificateAuthority.create("Test CA", Duration.ofDays(1));
        assertThat(a.certificate().getSubjectX500Principal()).isNotEqualTo(b.certificate().getSubjectX500Principal());
        X509Certificate fromB = b.issue("parallax-replica-0", List.of(), Duration.ofDays(1)).certificate();
        PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(a.certificate(), null)));
        params.setRevocationEnabled(false);
        assertThatThrownBy(() -> CertPathValidator.getInstance("PKIX").validate(
                CertificateFactory.getInstance("X.509").generateCertPath(List.of(fromB)), params))
                .isInstanceOf(java.security.cert.CertPathValidatorException.class);
    }

    @Test
    void aClusterSetNamesEachReplicaAndRoundTripsThroughPem(@TempDir Path dir) throws Exception {
        ClusterCertificates set = ClusterCertificates.generate(dir, 3);
        assertThat(set.files()).allMatch(Files::isRegularFile).hasSize(1 + 2 * 3 + 2);
        X509Certificate ca = Pem.readCertificates(set.ca(), "CA").get(0);
        for (int i = 0; i < 3; i++) {
            X509Certificate cert = Pem.readCertificates(set.cert(i), "cert").get(0);
            assertThat(PeerIdentity.names(cert, TlsConfig.replicaIdentity(i))).isTrue();
            assertThat(PeerIdentity.names(cert)).contains("localhost");
            cert.verify(ca.getPublicKey());
            assertThat(signs(Pem.readPrivateKey(set.key(i), "key"), cert)).isTrue();
        }
        assertThat(PeerIdentity.names(Pem.readCertificates(set.clientCert(), "cert").get(0)))
                .contains(ClusterCertificates.CLIENT_IDENTITY).doesNotContain(TlsConfig.replicaIdentity(0));
        if (Files.getFileStore(dir).supportsFileAttributeView("posix")) {
            assertThat(Files.getPosixFilePermissions(set.key(0))).as("a key is its owner's only")
                    .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        }
        TlsConfig tls = set.replicaTls(1, true);
        assertThat(tls.replicaPort()).isTrue();
        assertThat(tls.clientPorts()).isTrue();
        assertThat(TlsContexts.load(tls).handshakeTimeout()).isEqualTo(Duration.ofMillis(TlsConfig.DEFAULT_HANDSHAKE_TIMEOUT_MILLIS));
    }

    @Test
    void loadingNamesTheFaultyFile(@TempDir Path dir) throws Exception {
        ClusterCertificates set = ClusterCertificates.generate(dir, 1);
        Path missing = dir.resolve("nope.crt");
        assertThatThrownBy(() -> TlsContexts.load(TlsConfig.builder().replicaPort(true).trust(set.ca())
                .identity(missing, set.key(0)).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("certificate " + missing + ": no such file");
        Path traditional = Files.writeString(dir.resolve("old.key"),
                "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n", StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> TlsContexts.load(TlsConfig.builder().replicaPort(true).trust(set.ca())
                .identity(set.cert(0), traditional).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(traditional.toString())
                .hasMessageContaining("openssl pkcs8 -topk8");
        assertThatThrownBy(() -> TlsContexts.load(TlsConfig.builder().replicaPort(true).trust(set.key(0))
                .identity(set.cert(0), set.key(0)).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("CA certificate " + set.key(0));
        ClusterCertificates other = ClusterCertificates.generate(dir.resolve("other"), 1);
        assertThatThrownBy(() -> TlsContexts.load(TlsConfig.builder().replicaPort(true).trust(set.ca())
                .identity(set.cert(0), other.key(0)).build()))
                .as("a key that is not the certificate's").isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(other.key(0).toString());
    }

    private static boolean sameAddress(String literal, InetAddress address) {
        try {
            return InetAddress.getByName(literal).equals(address);
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    private static boolean signs(PrivateKey key, X509Certificate cert) throws Exception {
        byte[] data = "proof".getBytes(StandardCharsets.UTF_8);
        Signature s = Signature.getInstance("SHA256withECDSA");
        s.initSign(key);
        s.update(data);
        byte[] sig = s.sign();
        Signature v = Signature.getInstance("SHA256withECDSA");
        v.initVerify(cert.getPublicKey());
        v.update(data);
        return v.verify(sig);
    }
}
