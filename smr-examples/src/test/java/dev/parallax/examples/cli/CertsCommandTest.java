package dev.parallax.examples.cli;

import dev.parallax.core.config.ClusterSecret;
import dev.parallax.core.wire.tls.PeerIdentity;
import dev.parallax.core.wire.tls.Pem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code parallax certs}: the files, and cluster-file keys that load and check as they are. */
class CertsCommandTest {

    @Test
    void writesACaCertificatesAndTheClusterFileKeys(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new CommandLine(new CertsCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)))
                .execute("--out", dir.toString(), "--replicas", "5", "--host", "db.example", "--days", "3");
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        for (String f : new String[] {"ca.crt", "replica-0.crt", "replica-4.key", "client.crt", "client.key", "tls.properties"}) {
            assertThat(dir.resolve(f)).isRegularFile();
        }
        assertThat(PeerIdentity.names(Pem.readCertificates(dir.resolve("replica-3.crt"), "cert").get(0)))
                .contains("parallax-replica-3", "localhost", "db.example");
        java.security.cert.X509Certificate client = Pem.readCertificates(dir.resolve("client.crt"), "cert").get(0);
        assertThat(client.getExtendedKeyUsage()).as("clientAuth only: the client key cannot serve a replica's ports")
                .containsExactly("1.3.6.1.5.5.7.3.2");
        assertThat(client.getSubjectAlternativeNames()).as("the client certificate names no host, not even --host's").isNull();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("tls.replica=required").contains("redis-cli --tls --cacert");

        Properties p = new Properties();
        try (var r = Files.newBufferedReader(dir.resolve("tls.properties"))) {
            p.load(r);
        }
        p.setProperty("members", dev.parallax.core.net.LocalPorts.endpoints(5));
        ClusterFile f = ClusterFile.of(p);
        for (int i = 0; i < 5; i++) {
            f.checkTlsFiles(i);
        }
        assertThat(f.replica(4).tls().clientPorts()).isTrue();

        Path secret = dir.resolve("cluster.secret");
        assertThat(Files.size(secret)).as("a 32-byte cluster secret").isEqualTo(32);
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secret))).as("owner-only")
                    .isEqualTo("rw-------");
        }
        assertThat(p.getProperty("cluster.secret")).isEqualTo(secret.toAbsolutePath().toString());
        assertThat(f.replica(2).clusterSecret()).as("the replica reads it").contains(ClusterSecret.read(secret));
    }

    @Test
    void eachRunWritesANewSecret(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        byte[][] secrets = new byte[2][];
        for (int run = 0; run < 2; run++) {
            int code = new CommandLine(new CertsCommand(new PrintStream(sink), new PrintStream(sink)))
                    .execute("--out", dir.toString(), "--replicas", "1");
            assertThat(code).isZero();
            secrets[run] = Files.readAllBytes(dir.resolve("cluster.secret"));
        }
        assertThat(secrets[0]).isNotEqualTo(secrets[1]);
    }

    @Test
    void refusesNonsense(@TempDir Path dir) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new CommandLine(new CertsCommand(new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8))).execute("--out", dir.toString(), "--replicas", "0");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--replicas");
    }
}
