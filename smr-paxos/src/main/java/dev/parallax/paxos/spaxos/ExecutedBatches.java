package dev.parallax.paxos.spaxos;

import dev.parallax.core.batch.CommandBatch;
import dev.parallax.paxos.Value;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The bytes S-Paxos delivers for one decided instance: the ids executed, then every
 * command of their bodies as one command batch —
 * {@code idCount:4 (origin:4 incarnation:8 sn:8){idCount} | CommandBatch.concat(bodies)}. The id
 * part has the {@link IdList} format. The replica's listener sees only the commands
 * ({@link ExecutionMirror} takes the ids off for the delivery-state mirror).
 *
 * <p>One body is delivered as it is (not re-copied, not checked: the replica's executor checks and
 * counts a malformed batch). Of several, a body that is not a command batch (a lying or broken
 * origin) is left out of the commands on every replica alike (the bodies of an id are the same
 * everywhere); its id still counts as executed.
 *
 * <p>Stateless and thread-safe.
 */
public final class ExecutedBatches {

    /**
     * What {@link #decode} reads back.
     *
     * @param ids      the executed ids, in order
     * @param commands one {@link CommandBatch} of all their commands (a read-only slice)
     */
    public record Delivered(List<BatchId> ids, ByteBuffer commands) {
    }

    private ExecutedBatches() {
    }

    /** The delivered bytes of {@code e} (a new buffer positioned at 0). */
    public static ByteBuffer encode(Executable e) {
        ByteBuffer ids = IdList.encode(e.ids()).bytes();
        ByteBuffer commands = commands(e.bodies());
        ByteBuffer out = ByteBuffer.allocate(ids.remaining() + commands.remaining());
        out.put(ids).put(commands.duplicate());
        return out.flip();
    }

    /**
     * Reads what {@link #encode} wrote. The commands are a slice of {@code bytes} (not copied).
     *
     * @throws IllegalArgumentException if the id part is malformed
     */
    public static Delivered decode(ByteBuffer bytes) {
        ByteBuffer b = bytes.duplicate();
        int count;
        try {
            count = b.getInt(b.position());
        } catch (IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("delivered bytes too short for an id count: " + bytes.remaining() + " B", e);
        }
        if (count <= 0 || count > IdList.MAX_IDS || b.remaining() < IdList.encodedSize(count)) {
            throw new IllegalArgumentException("delivered bytes claim " + count + " ids in " + bytes.remaining() + " B");
        }
        int idBytes = IdList.encodedSize(count);
        ByteBuffer idPart = b.slice(b.position(), idBytes);
        List<BatchId> ids;
        try {
            ids = IdList.decode(Value.of(idPart));
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated id list", e);
        }
        ByteBuffer commands = b.slice(b.position() + idBytes, b.remaining() - idBytes).asReadOnlyBuffer();
        return new Delivered(ids, commands);
    }

    /** One batch of every command of {@code bodies}; of several, bodies that are not command batches are left out. */
    static ByteBuffer commands(List<ByteBuffer> bodies) {
        if (bodies.size() == 1) {
            return bodies.get(0);
        }
        try {
            return CommandBatch.concat(bodies);
        } catch (IllegalArgumentException malformed) {
            List<ByteBuffer> good = new ArrayList<>(bodies.size());
            for (ByteBuffer body : bodies) {
                if (isBatch(body)) {
                    good.add(body);
                }
            }
            return CommandBatch.concat(good);
        }
    }

    private static boolean isBatch(ByteBuffer body) {
        try {
            CommandBatch.decode(body.duplicate());
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
