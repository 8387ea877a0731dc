package dev.parallax.examples.cli;

import dev.parallax.core.config.TlsConfig;
import dev.parallax.core.wire.tls.ClusterCertificates;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The cluster file's {@code tls.*} keys: parsed into each replica's
 * {@link TlsConfig}, relative paths taken from the file's directory, and clear errors — naming
 * the key, and the file when it is the file that is wrong — for every way to get them wrong.
 */
class ClusterFileTlsTest {
    private static final String MEMBERS = "members=0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002\n";

    @TempDir
    static Path dir;
    private static ClusterCertificates certs;

    @BeforeAll
    static void generate() throws IOException {
        certs = ClusterCertificates.generate(dir.resolve("certs"), 3);
    }

    private static Path write(String name, String text) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return f;
    }

    /** The TLS keys of {@link #certs} as relative paths, minus the keys named in {@code without}. */
    private static String relativeKeys(String... without) {
        StringBuilder sb = new StringBuilder("tls.replica=required\ntls.client=on\ntls.ca=certs/ca.crt\n");
        for (int i = 0; i < 3; i++) {
            sb.append("tls.cert.").append(i).append("=certs/replica-").append(i).append(".crt\n");
            sb.append("tls.key.").append(i).append("=certs/replica-").append(i).append(".key\n");
        }
        String text = sb.toString();
        for (String key : without) {
            text = text.replaceAll("(?m)^" + java.util.regex.Pattern.quote(key) + "=.*\n", "");
        }
        return text;
    }

    @Test
    void theKeysGiveEachReplicaItsFilesRelativeToTheFile() throws Exception {
        ClusterFile f = ClusterFile.load(write("tls.properties", MEMBERS + relativeKeys() + "tls.handshake.timeout.ms=2500\n"));
        for (int i = 0; i < 3; i++) {
            TlsConfig tls = f.replica(i).tls();
            assertThat(tls.replicaPort()).isTrue();
            assertThat(tls.clientPorts()).isTrue();
            assertThat(tls.caFile()).contains(certs.ca());
            assertThat(tls.certFile()).contains(certs.cert(i));
            assertThat(tls.keyFile()).contains(certs.key(i));
            assertThat(tls.handshakeTimeout()).isEqualTo(Duration.ofMillis(2500));
            f.checkTlsFiles(i);
        }
        assertThat(f.clientTrust()).contains(certs.ca());
        assertThat(f.describeRuntime(2)).endsWith(", tls mutual between replicas, on client ports");
    }

    @Test
    void withoutTlsKeysNothingChanges() throws Exception {
        ClusterFile f = ClusterFile.load(write("plain.properties", MEMBERS));
        assertThat(f.replica(1).tls()).isSameAs(TlsConfig.OFF);
        assertThat(f.clientTrust()).isEmpty();
        assertThat(f.describeRuntime(2)).doesNotContain("tls");
        f.checkTlsFiles(1);
        ClusterFile clientOnly = ClusterFile.load(write("client-only.properties", MEMBERS
                + relativeKeys().replace("tls.replica=required", "tls.replica=off")));
        assertThat(clientOnly.replica(0).tls().replicaPort()).isFalse();
        assertThat(clientOnly.replica(0).tls().clientPorts()).isTrue();
    }

    @Test
    void generatedSettingsLoad() throws Exception {
        java.util.Properties p = new java.util.Properties();
        p.setProperty("members", MEMBERS.substring("members=".length()).trim());
        Map<String, String> settings = ClusterFile.tlsSettings(certs, false);
        p.putAll(settings);
        ClusterFile f = ClusterFile.of(p);
        assertThat(f.replica(2).tls().replicaPort()).isTrue();
        assertThat(f.replica(2).tls().clientPorts()).isFalse();
        assertThat(f.clientTrust()).isEmpty();
        f.checkTlsFiles(2);
    }

    @Test
    void missingOrMalformedKeysAreNamed() throws Exception {
        assertThatThrownBy(() -> ClusterFile.load(write("a.properties", MEMBERS + relativeKeys("tls.ca"))))
                .hasMessageContaining("a.properties").hasMessageContaining("'tls.ca' is required");
        assertThatThrownBy(() -> ClusterFile.load(write("b.properties", MEMBERS + relativeKeys("tls.key.2"))))
                .as("every member's key is named, not only the first's").hasMessageContaining("'tls.key.2' is required");
        assertThatThrownBy(() -> ClusterFile.load(write("c.properties", MEMBERS + relativeKeys()
                .replace("tls.replica=required", "tls.replica=yes"))))
                .hasMessageContaining("tls.replica must be required or off, got 'yes'");
        assertThatThrownBy(() -> ClusterFile.load(write("d.properties", MEMBERS + relativeKeys()
                .replace("tls.client=on", "tls.client=true"))))
                .hasMessageContaining("tls.client must be on or off");
        assertThatThrownBy(() -> ClusterFile.load(write("e.properties", MEMBERS + relativeKeys() + "tls.cert.32=x.crt\n")))
                .as("a replica a membership change adds may have an id up to 31, not beyond")
                .hasMessageContaining("tls.cert.32 names no replica: ids are 0..31");
        ClusterFile.load(write("e2.properties", MEMBERS + relativeKeys() + "tls.cert.3=x.crt\ntls.key.3=x.key\n"));
        assertThatThrownBy(() -> ClusterFile.load(write("f.properties", MEMBERS + relativeKeys() + "tls.certs.0=x.crt\n")))
                .hasMessageContaining("unknown key 'tls.certs.0'");
        assertThatThrownBy(() -> ClusterFile.load(write("g.properties", MEMBERS + relativeKeys() + "tls.handshake.timeout.ms=0\n")))
                .hasMessageContaining("tls.handshake.timeout.ms must be > 0, got 0 ms");
    }

    @Test
    void missingOrWrongFilesAreNamedWhenTheReplicaStarts() throws Exception {
        ClusterFile missing = ClusterFile.load(write("h.properties", MEMBERS + relativeKeys()
                .replace("certs/replica-1.key", "certs/gone.key")));
        missing.checkTlsFiles(0); // replica 0's machine does not need replica 1's key
        assertThatThrownBy(() -> missing.checkTlsFiles(1))
                .hasMessageContaining("h.properties").hasMessageContaining("tls.key.1=" + dir.resolve("certs/gone.key"))
                .hasMessageContaining("no such file");
        ClusterFile swapped = ClusterFile.load(write("i.properties", MEMBERS + relativeKeys()
                .replace("tls.key.0=certs/replica-0.key", "tls.key.0=certs/replica-2.key")));
        assertThatThrownBy(() -> swapped.checkTlsFiles(0))
                .hasMessageContaining("i.properties").hasMessageContaining("does not belong to certificate");
        ClusterFile notPem = ClusterFile.load(write("j.properties", MEMBERS + relativeKeys()
                .replace("tls.ca=certs/ca.crt", "tls.ca=j.properties")));
        assertThatThrownBy(() -> notPem.checkTlsFiles(0)).hasMessageContaining("CA certificate " + dir.resolve("j.properties"));
    }

    @Test
    void aReplicaWhoseKeyIsMissingExitsWithTwoNamingItBeforeAnythingStarts() throws Exception {
        Path config = write("k.properties", "members=0=127.0.0.1:" + dev.parallax.core.net.LocalPorts.next() + "\n"
                + "tls.replica=required\ntls.ca=certs/ca.crt\ntls.cert.0=certs/replica-0.crt\ntls.key.0=certs/missing.key\n");
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.io.PrintStream saved = System.err;
        int code;
        try (java.io.PrintStream capture = new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8)) {
            System.setErr(capture);
            code = new picocli.CommandLine(new ReplicaCommand()).execute("--config", config.toString(), "--id", "0");
        } finally {
            System.setErr(saved);
        }
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8))
                .contains(config + ": tls.key.0=" + dir.resolve("certs/missing.key") + ": no such file");
        assertThat(ReplicaCommand.RUNNING).isFalse();
    }
}
