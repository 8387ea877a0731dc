package dev.parallax.dist;

import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.testkit.Await;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The container image without a container runtime: its layers unpacked into a root file system,
 * its entry point run there with {@code chroot} (in a private mount namespace, with /proc), as the
 * image's user. Needs root, {@code unshare} and {@code chroot}; skipped with the reason otherwise.
 */
class ImageIT {
    private static final Duration RUN = Duration.ofSeconds(120);
    private static Path rootfs;
    private static List<String> entrypoint;
    private static String user;
    private static List<String> env;

    @BeforeAll
    static void unpack() throws Exception {
        Assumptions.assumeTrue(Dist.root(), "skipped: unpacking the image and chroot need root");
        for (String tool : List.of("unshare", "chroot", "mount", "mknod", "tar")) {
            Assumptions.assumeTrue(Dist.onPath(tool), "skipped: " + tool + " is not on the PATH");
        }
        Path image = Dist.path("dist.image");
        Path dir = Dist.workDir("image");
        Dist.run(RUN, null, "tar", "-xf", image.toString(), "-C", dir.toString()).ok("tar -xf " + image);
        rootfs = Files.createDirectories(dir.resolve("rootfs"));
        String manifest = Files.readString(dir.resolve("manifest.json"));
        for (String layer : strings(manifest, "Layers")) {
            Dist.run(RUN, null, "tar", "--warning=no-unknown-keyword", "-xzf", dir.resolve(layer).toString(),
                    "-C", rootfs.toString()).ok("tar -xzf " + layer);
        }
        String config = Files.readString(dir.resolve(strings(manifest, "Config").get(0)));
        entrypoint = strings(config, "Entrypoint");
        env = strings(config, "Env");
        Matcher u = Pattern.compile("\"User\"\\s*:\\s*\"([^\"]*)\"").matcher(config);
        user = u.find() ? u.group(1) : "0:0";
        // The devices a container runtime would provide.
        Files.createDirectories(rootfs.resolve("dev"));
        for (String[] d : new String[][] {{"null", "3"}, {"zero", "5"}, {"random", "8"}, {"urandom", "9"}}) {
            Dist.run(RUN, null, "mknod", "-m", "666", rootfs.resolve("dev").resolve(d[0]).toString(), "c", "1", d[1])
                    .ok("mknod " + d[0]);
        }
    }

    @Test
    @DisplayName("the image runs as a non-root user, from scratch: a jlink'd Java, its libraries, /tmp")
    void layout() {
        assertThat(user).isEqualTo("10001:10001");
        assertThat(entrypoint.get(0)).isEqualTo("/opt/java/bin/java");
        assertThat(rootfs.resolve("opt/java/bin/java")).isExecutable();
        assertThat(rootfs.resolve("lib64/ld-linux-x86-64.so.2")).exists();
        assertThat(rootfs.resolve("tmp")).isDirectory();
        assertThat(rootfs.resolve("etc/passwd")).content().contains("parallax:x:10001:10001");
        assertThat(rootfs.resolve("bin")).as("no shell, no tools: a scratch base").doesNotExist();
    }

    @Test
    @DisplayName("the entry point prints the usage")
    void help() throws Exception {
        String out = Dist.run(RUN, null, Map.of(), chroot("--help")).ok("entrypoint --help").output();
        assertThat(out).contains("replica", "bench", "testbed");
    }

    @Test
    @DisplayName("a replica in the image serves /metrics and Redis PING, with a durable log, and stops on SIGTERM")
    void replica() throws Exception {
        int member = LocalPorts.next();
        int client = LocalPorts.next();
        int redis = LocalPorts.next();
        int metrics = LocalPorts.next();
        Files.createDirectories(rootfs.resolve("etc/parallax"));
        Files.writeString(rootfs.resolve("etc/parallax/one.properties"), String.join("\n",
                "members=0=127.0.0.1:" + member, "clients=0=127.0.0.1:" + client, "redis=0=127.0.0.1:" + redis,
                "metrics=0=127.0.0.1:" + metrics, "data.dir=/var/lib/parallax/data", ""));
        Path log = rootfs.getParent().resolve("replica.log");
        Process p = new ProcessBuilder(chroot("replica", "--config", "/etc/parallax/one.properties", "--id", "0",
                "--bootstrap")).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metrics + "/metrics"))
                    .timeout(Duration.ofSeconds(5)).build();
            Await.until(Duration.ofSeconds(90), () -> {
                if (!p.isAlive()) {
                    throw new AssertionError("the replica in the image exited " + p.exitValue() + ":\n" + read(log));
                }
                try {
                    HttpResponse<String> r = http.send(get, HttpResponse.BodyHandlers.ofString());
                    return r.statusCode() == 200 && r.body().contains("parallax_");
                } catch (IOException e) {
                    return false;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }, () -> "GET /metrics from the replica in the image; its output:\n" + read(log));
            Await.until(Duration.ofSeconds(60), () -> ping(redis).startsWith("+PONG"),
                    () -> "Redis PING to the replica in the image; its output:\n" + read(log));
        } finally {
            p.descendants().forEach(ProcessHandle::destroy); // SIGTERM to the JVM
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly().waitFor();
            }
        }
        assertThat(read(log)).contains("READY replica 0").doesNotContain("durable log failed");
    }

    /** The entry point with {@code args}, run in the root file system as the image's user with its environment. */
    private static List<String> chroot(String... args) {
        List<String> c = new ArrayList<>(List.of("unshare", "--mount", "--fork", "--kill-child", "sh", "-c",
                // A private mount namespace: the root file system as a mount of its own (so /proc/mounts
                // names it, as in a container) and /proc; both vanish with the namespace.
                "mount --make-rprivate / && mount --bind \"$0\" \"$0\" && mount -t proc proc \"$0/proc\""
                        + " && exec \"$@\"", rootfs.toString(), "env", "-i"));
        c.addAll(env);
        c.addAll(List.of(Dist.which("chroot"), "--userspec=" + user, rootfs.toString()));
        c.addAll(entrypoint);
        c.addAll(List.of(args));
        return c;
    }

    /** The JSON string array (or the one string) under {@code key}: the image's manifest and config hold nothing fancier. */
    private static List<String> strings(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\"\\s*:\\s*(\\[[^\\]]*\\]|\"[^\"]*\")").matcher(json);
        assertThat(m.find()).as(key + " in " + json).isTrue();
        List<String> out = new ArrayList<>();
        Matcher s = Pattern.compile("\"([^\"]*)\"").matcher(m.group(1));
        while (s.find()) {
            out.add(s.group(1));
        }
        return out;
    }

    private static String ping(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[64];
            int n = in.read(buf);
            return n <= 0 ? "" : new String(buf, 0, n, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return "";
        }
    }

    private static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log) : "(no output)";
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }
}
