package dev.parallax.examples.process;

import dev.parallax.core.config.ClusterSecret;
import dev.parallax.core.config.ReplicaKeys;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

/**
 * Writes a new cluster secret ({@code cluster.secret}): {@value ClusterSecret#GENERATED_BYTES}
 * random bytes in a file only its owner may read or write (mode 0600 where the file system has
 * POSIX permissions), replacing any earlier one. {@code ./parallax certs} and the clusters the CLI
 * launches (and the benchmarks' replica clusters) use it. Stateless; blocks for the write.
 */
public final class ClusterSecretFile {
    /** The file name {@code certs} and launched clusters use. */
    public static final String NAME = "cluster.secret";

    private ClusterSecretFile() {
    }

    /**
     * Writes a new secret to {@code file}.
     *
     * @return the cluster-file key naming it, {@code cluster.secret=<absolute path>}
     */
    public static Map<String, String> write(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.deleteIfExists(file);
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } else {
            Files.createFile(file);
        }
        Files.write(file, ClusterSecret.random().bytes(), StandardOpenOption.TRUNCATE_EXISTING);
        return Map.of(ReplicaKeys.CLUSTER_SECRET.name(), file.toAbsolutePath().toString());
    }
}
