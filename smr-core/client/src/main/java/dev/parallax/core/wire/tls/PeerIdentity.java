package dev.parallax.core.wire.tls;

import dev.parallax.core.config.TlsConfig;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The identity rule (see {@link TlsConfig}): a certificate names a replica when its subject CN,
 * or one of its DNS subject-alternative names, is {@code parallax-replica-<id>}. Host names and IP
 * addresses in the certificate play no part. Stateless and thread-safe.
 */
public final class PeerIdentity {
    /** Subject-alternative-name type of a DNS name (RFC 5280 §4.2.1.6). */
    private static final int SAN_DNS = 2;

    private PeerIdentity() {
    }

    /** The names a certificate goes by: its subject CN(s), then its DNS subject-alternative names. */
    public static Set<String> names(X509Certificate certificate) {
        Set<String> names = new LinkedHashSet<>();
        try {
            for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    names.add(String.valueOf(rdn.getValue()));
                }
            }
        } catch (InvalidNameException e) {
            // an unparsable subject names nobody; the alternative names may still
        }
        try {
            Collection<List<?>> alternatives = certificate.getSubjectAlternativeNames();
            if (alternatives != null) {
                for (List<?> entry : alternatives) {
                    if (entry.size() >= 2 && entry.get(0) instanceof Integer type && type == SAN_DNS) {
                        names.add(String.valueOf(entry.get(1)));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            // malformed extension: the CN alone counts
        }
        return names;
    }

    /** Whether {@code certificate} names {@code identity}. */
    public static boolean names(X509Certificate certificate, String identity) {
        return names(certificate).contains(identity);
    }

    /**
     * The peer's leaf certificate in a completed handshake.
     *
     * @throws SSLPeerUnverifiedException if the peer presented none
     */
    public static X509Certificate peerCertificate(SSLSession session) throws SSLPeerUnverifiedException {
        Certificate[] chain = session.getPeerCertificates();
        if (chain.length == 0 || !(chain[0] instanceof X509Certificate leaf)) {
            throw new SSLPeerUnverifiedException("the peer presented no X.509 certificate");
        }
        return leaf;
    }

    /**
     * Describes why {@code session}'s peer is not {@code identity}, or returns {@code null} if it is.
     */
    public static String mismatch(SSLSession session, String identity) {
        try {
            X509Certificate leaf = peerCertificate(session);
            Set<String> names = names(leaf);
            return names.contains(identity) ? null : "its certificate names " + names + ", not " + identity;
        } catch (SSLPeerUnverifiedException e) {
            return "it presented no certificate (" + e.getMessage() + ")";
        }
    }
}
