package dev.parallax.core.snapshot;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SnapshotStoreTest {

    private static SnapshotStore.BodyWriter text(String s, int repeat) {
        return out -> {
            DataOutputStream d = new DataOutputStream(Channels.newOutputStream(out));
            d.writeInt(repeat);
            for (int i = 0; i < repeat; i++) {
                d.writeUTF(s + i);
            }
            d.flush();
        };
    }

    private static String firstAndCount(SnapshotStore store, SnapshotStore.Snapshot s) throws IOException {
        try (ReadableByteChannel ch = store.openBody(s)) {
            DataInputStream in = new DataInputStream(SnapshotStore.asStream(ch));
            int n = in.readInt();
            String first = in.readUTF();
            for (int i = 1; i < n; i++) {
                in.readUTF();
            }
            assertThat(in.read()).as("body ends exactly").isEqualTo(-1);
            return first + "/" + n;
        }
    }

    @Test
    void writesAndReadsBackTheNewestSnapshot(@TempDir Path dir) throws IOException {
        SnapshotStore store = new SnapshotStore(dir);
        assertThat(store.latest()).isEmpty();
        store.write(10, text("a", 3));
        store.write(20, text("b", 50_000));
        SnapshotStore.Snapshot s = store.latest().orElseThrow();
        assertThat(s.instance()).isEqualTo(20);
        assertThat(firstAndCount(store, s)).isEqualTo("b0/50000");
    }

    @Test
    void keepsOnlyTheTwoNewest(@TempDir Path dir) throws IOException {
        SnapshotStore store = new SnapshotStore(dir);
        for (long i = 1; i <= 5; i++) {
            store.write(i * 100, text("x", 1));
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).sorted())
                    .containsExactly("snapshot-00000000000000000400.snap", "snapshot-00000000000000000500.snap");
        }
    }

    @Test
    void aDamagedNewestSnapshotFallsBackToTheOlderOne(@TempDir Path dir) throws IOException {
        SnapshotStore store = new SnapshotStore(dir);
        store.write(10, text("old", 10));
        SnapshotStore.Snapshot newer = store.write(20, text("new", 10));
        try (FileChannel ch = FileChannel.open(newer.file(), StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[]{42}), 40); // flip a byte of the body
        }
        SnapshotStore.Snapshot s = store.latest().orElseThrow();
        assertThat(s.instance()).isEqualTo(10);
        assertThat(firstAndCount(store, s)).isEqualTo("old0/10");
    }

    @Test
    void aTruncatedOrForeignFileIsIgnoredAndAFailedWriteKeepsThePrevious(@TempDir Path dir) throws IOException {
        SnapshotStore store = new SnapshotStore(dir);
        store.write(10, text("ok", 1));
        Files.write(dir.resolve("snapshot-00000000000000000099.snap"), new byte[]{1, 2, 3});
        assertThatThrownBy(() -> store.write(30, out -> {
            throw new IOException("disk full");
        })).hasMessage("disk full");
        assertThat(store.latest().orElseThrow().instance()).isEqualTo(10);
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.noneMatch(p -> p.toString().endsWith(".tmp"))).isTrue();
        }
    }

    @Test
    void aReceivedSnapshotIsVerifiedBeforeItIsInstalled(@TempDir Path dir) throws IOException {
        SnapshotStore source = new SnapshotStore(dir.resolve("a"));
        SnapshotStore.Snapshot s = source.write(77, text("peer", 5));
        SnapshotStore target = new SnapshotStore(dir.resolve("b"));
        Path received = dir.resolve("incoming");
        Files.copy(s.file(), received);
        assertThat(target.install(received).instance()).isEqualTo(77);
        assertThat(firstAndCount(target, target.latest().orElseThrow())).isEqualTo("peer0/5");
        Path bad = dir.resolve("bad");
        Files.write(bad, new byte[100]);
        assertThatThrownBy(() -> target.install(bad)).hasMessageContaining("damaged");
    }

    @Test
    void theHeaderAnnouncesTheInstanceAndTheFileSize(@TempDir Path dir) throws IOException {
        SnapshotStore store = new SnapshotStore(dir);
        SnapshotStore.Snapshot s = store.write(42, text("x", 500));
        byte[] file = Files.readAllBytes(s.file());
        ByteBuffer header = ByteBuffer.wrap(file, 0, SnapshotStore.HEADER_BYTES);
        assertThat(SnapshotStore.readHeader(header)).contains(new SnapshotStore.FileHeader(42, file.length));
        assertThat(header.position()).as("the buffer is not moved").isZero();

        file[0] ^= 1;
        assertThat(SnapshotStore.readHeader(ByteBuffer.wrap(file))).as("bad magic").isEmpty();
        ByteBuffer negative = ByteBuffer.wrap(Files.readAllBytes(s.file()));
        negative.putLong(16, -5);
        assertThat(SnapshotStore.readHeader(negative)).as("negative length").isEmpty();
        assertThatThrownBy(() -> SnapshotStore.readHeader(ByteBuffer.allocate(10))).isInstanceOf(IllegalArgumentException.class);
    }

    /** A snapshot file of {@code version} built by hand, as an older (or newer) writer left it. */
    private static Path handWritten(Path dir, long instance, int version, byte[] body) throws IOException {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(body);
        ByteBuffer file = ByteBuffer.allocate(SnapshotStore.HEADER_BYTES + body.length + 8)
                .putInt(0x5058534e).putInt(version).putLong(instance).putLong(body.length).put(body).putLong(crc.getValue());
        Path p = dir.resolve(String.format("snapshot-%020d.snap", instance));
        Files.write(p, file.array());
        return p;
    }

    @Test
    @DisplayName("writes version 2, reads versions 1 and 2 and tells which; ignores unknown versions")
    void readsVersionOneAndTwo(@TempDir Path dir) throws IOException {
        SnapshotStore store = new SnapshotStore(dir);
        assertThat(SnapshotStore.VERSION).isEqualTo(2);
        SnapshotStore.Snapshot written = store.write(10, text("new", 2));
        assertThat(written.version()).isEqualTo(2);
        assertThat(store.latest().orElseThrow().version()).isEqualTo(2);

        Path v1 = handWritten(dir, 20, 1, new byte[]{1, 2, 3});
        SnapshotStore.Snapshot old = store.latest().orElseThrow();
        assertThat(old.instance()).isEqualTo(20);
        assertThat(old.version()).isEqualTo(1);
        assertThat(old.bodyLength()).isEqualTo(3);
        try (ReadableByteChannel ch = store.openBody(old)) {
            assertThat(SnapshotStore.asStream(ch).readAllBytes()).containsExactly(1, 2, 3);
        }
        byte[] v1File = Files.readAllBytes(v1);
        assertThat(SnapshotStore.readHeader(ByteBuffer.wrap(v1File)))
                .contains(new SnapshotStore.FileHeader(20, v1File.length));

        // A received version 1 file installs as version 1 (snapshot transfer ships files unchanged).
        SnapshotStore target = new SnapshotStore(dir.resolve("b"));
        Path received = dir.resolve("incoming");
        Files.copy(v1, received);
        assertThat(target.install(received).version()).isEqualTo(1);
        assertThat(target.latest().orElseThrow().version()).isEqualTo(1);

        // Versions this store does not know are not read: the newest readable one is used.
        handWritten(dir, 30, 3, new byte[]{9});
        handWritten(dir, 25, 0, new byte[]{9});
        assertThat(store.latest().orElseThrow().instance()).isEqualTo(20);
        assertThat(SnapshotStore.readable(0)).isFalse();
        assertThat(SnapshotStore.readable(3)).isFalse();
    }
}
