package dev.parallax.examples.volery.zk;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.jute.BinaryInputArchive;
import org.apache.jute.BinaryOutputArchive;
import org.apache.jute.InputArchive;
import org.apache.jute.Record;
import org.apache.zookeeper.proto.ReplyHeader;

/**
 * ZooKeeper's framing around jute records: every message is a 4-byte big-endian length and then the
 * records, serialized by jute's {@link BinaryInputArchive}/{@link BinaryOutputArchive} (nothing here
 * writes a record field by hand). Reading never trusts a length beyond jute's own bound
 * ({@code jute.maxbuffer} plus its extra room) or the frame's end.
 *
 * <p>Stateless; safe from any thread.
 */
final class ZkWire {
    private ZkWire() {
    }

    /** An archive reading the frame from its reader index on (advancing it). */
    static InputArchive archive(ByteBuf frame) {
        return BinaryInputArchive.getArchive(new ByteBufInputStream(frame));
    }

    /**
     * Reads {@code record} from {@code in}.
     *
     * @throws IOException if the bytes end early or hold an unreasonable length
     */
    static <T extends Record> T read(InputArchive in, T record) throws IOException {
        try {
            record.deserialize(in, "record");
        } catch (RuntimeException e) {
            // jute raises an unchecked exception on a few corrupt inputs (e.g. a huge vector size).
            throw new IOException("undecodable " + record.getClass().getSimpleName() + ": " + e, e);
        }
        return record;
    }

    /** Appends a reply frame: length, {@code header} and, if not null, {@code body}. */
    static void writeReply(ByteBuf out, ReplyHeader header, Record body) {
        int start = out.writerIndex();
        out.writeInt(0);
        try (ByteBufOutputStream stream = new ByteBufOutputStream(out)) {
            BinaryOutputArchive archive = BinaryOutputArchive.getArchive(stream);
            header.serialize(archive, "header");
            if (body != null) {
                body.serialize(archive, "response");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialize into a buffer", e);
        }
        out.setInt(start, out.writerIndex() - start - 4);
    }

    /**
     * Appends a frame holding {@code record} alone (the ConnectResponse), dropping its last
     * {@code dropTrailingBytes} bytes (the readOnly flag, for a client that did not send one).
     */
    static void writeRecord(ByteBuf out, Record record, int dropTrailingBytes) {
        int start = out.writerIndex();
        out.writeInt(0);
        try (ByteBufOutputStream stream = new ByteBufOutputStream(out)) {
            record.serialize(BinaryOutputArchive.getArchive(stream), "connect");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialize into a buffer", e);
        }
        out.writerIndex(out.writerIndex() - dropTrailingBytes);
        out.setInt(start, out.writerIndex() - start - 4);
    }
}
