package dev.parallax.examples.volery;

import dev.parallax.examples.volery.VoleryCommand.Decoded;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The bytes of a {@link VoleryCommand}, big-endian:
 * <pre>
 *   byte opcode (ZooKeeper's OpCode: create 1, delete 2, exists 3, getData 4, setData 5, getChildren 8)
 *   int  pathLength (0..{@link VoleryCommand#MAX_PATH_BYTES}), pathLength bytes UTF-8 path
 *   create:  int createModeFlag, int dataLength (0..{@link VoleryCommand#MAX_DATA_BYTES}), data,
 *            and for an ephemeral mode: long owner (non-zero), int timeoutMs (positive)
 *   delete:  int version
 *   setData: int version, int dataLength (0..{@link VoleryCommand#MAX_DATA_BYTES}), data
 *   check (opcode 13): int version
 *   multi (opcode 14, empty path): int count (1..{@link Multi#MAX_OPS}), count x (int length, the
 *            bytes of a check, create, delete or setData without a time)
 *   sessionTick (opcode 104, empty path): int count (0..{@link SessionTick#MAX_SESSIONS}), count x long session
 *   closeSession (opcode 105, empty path): long session
 *   create, setData, multi, sessionTick, closeSession, optionally: long time (ms; written only when
 *            not 0, absent means 0)
 *   exists, getData, getChildren, optionally: int frontEnd, long session (the {@link Watcher} of a
 *            read that sets a watch; absent means none)
 *   addWatch (opcode 102): byte recursive (0 or 1), int frontEnd, long session
 *   removeWatches (opcode 103): int type (1 children, 2 data, 3 any), int frontEnd, long session
 *   watchPoll (opcode 100, empty path): int partition, int frontEnd, long acked
 *   watchDrop (opcode 101, empty path): int partition, int frontEnd, long session
 *            ({@link WatchDrop#ALL_SESSIONS}: every session)
 * </pre>
 * and nothing after. Commands without a time or watcher encode exactly as before those existed.
 * The path is not validated here (the tree answers BADARGUMENTS); a create mode flag ZooKeeper does
 * not define is malformed.
 *
 * <p>Stateless; safe from any thread; never blocks. {@link #decode} never throws: malformed bytes
 * give a {@link VoleryCommand.Decoded} with the reason.
 */
final class VoleryCodec {
    /** Opcode and path length. */
    private static final int HEADER_BYTES = 1 + Integer.BYTES;
    /** The most any command writes after its path, besides its data: create's flag, data length and time. */
    private static final int MAX_FIELD_BYTES = Integer.BYTES + Integer.BYTES + Long.BYTES + Integer.BYTES + Long.BYTES;
    private static final byte[] NO_DATA = new byte[0];

    private VoleryCodec() {
    }

    /** The bytes of {@code command}. */
    static byte[] encode(VoleryCommand command) {
        if (command instanceof Multi m) {
            List<byte[]> ops = new ArrayList<>(m.ops().size());
            int size = HEADER_BYTES + Integer.BYTES + Long.BYTES;
            for (VoleryCommand op : m.ops()) {
                byte[] b = encode(op.withTime(0L));
                ops.add(b);
                size += Integer.BYTES + b.length;
            }
            ByteBuffer out = ByteBuffer.allocate(size);
            out.put(command.opcode()).putInt(0).putInt(ops.size());
            for (byte[] b : ops) {
                out.putInt(b.length).put(b);
            }
            return withTime(out, m.time());
        }
        if (command instanceof SessionTick t) {
            long[] ids = t.sessions();
            ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + Integer.BYTES + ids.length * Long.BYTES + Long.BYTES);
            out.put(command.opcode()).putInt(0).putInt(ids.length);
            for (long id : ids) {
                out.putLong(id);
            }
            return withTime(out, t.time());
        }
        if (command instanceof CloseSession c) {
            ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + 2 * Long.BYTES);
            return withTime(out.put(command.opcode()).putInt(0).putLong(c.session()), c.time());
        }
        byte[] path = command.path().getBytes(StandardCharsets.UTF_8);
        byte[] data = command instanceof Create c ? c.dataNotCopied()
                : command instanceof SetData s ? s.dataNotCopied() : NO_DATA;
        ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + path.length + MAX_FIELD_BYTES + data.length);
        out.put(command.opcode()).putInt(path.length).put(path);
        if (command instanceof Create c) {
            out.putInt(c.mode().flag()).putInt(data.length).put(data);
            if (c.mode().isEphemeral()) {
                out.putLong(c.owner()).putInt(c.timeoutMs());
            }
        } else if (command instanceof Check c) {
            out.putInt(c.version());
        } else if (command instanceof SetData s) {
            out.putInt(s.version()).putInt(data.length).put(data);
        } else if (command instanceof Delete d) {
            out.putInt(d.version());
        } else if (command instanceof AddWatch a) {
            putWatcher(out.put((byte) (a.recursive() ? 1 : 0)), a.watcher());
        } else if (command instanceof RemoveWatches r) {
            putWatcher(out.putInt(r.type()), r.watcher());
        } else if (command instanceof WatchPoll w) {
            out.putInt(w.partition()).putInt(w.frontEnd()).putLong(w.acked());
        } else if (command instanceof WatchDrop w) {
            out.putInt(w.partition()).putInt(w.frontEnd()).putLong(w.session());
        } else if (command.watcher() != null) {
            putWatcher(out, command.watcher());
        }
        return withTime(out, command.time());
    }

    /** The bytes written to {@code out} followed by {@code time} unless 0. */
    private static byte[] withTime(ByteBuffer out, long time) {
        if (time != 0) {
            out.putLong(time);
        }
        return Arrays.copyOf(out.array(), out.position());
    }

    /** Decodes {@code bytes}. Never throws. */
    static Decoded decode(byte[] bytes) {
        return bytes == null ? Decoded.malformed("no bytes") : decode(ByteBuffer.wrap(bytes));
    }

    /** Decodes the bytes from the buffer's position to its limit, without moving either. Never throws. */
    static Decoded decode(ByteBuffer bytes) {
        if (bytes == null) {
            return Decoded.malformed("no bytes");
        }
        ByteBuffer in = bytes.duplicate();
        try {
            byte op = in.get();
            int pathLength = in.getInt();
            if (pathLength < 0 || pathLength > VoleryCommand.MAX_PATH_BYTES || pathLength > in.remaining()) {
                return Decoded.malformed("bad path length " + pathLength + " (" + in.remaining() + " bytes left)");
            }
            ByteBuffer pathBytes = in.slice();
            pathBytes.limit(pathLength);
            in.position(in.position() + pathLength);
            String path = ZnodeSnapshotFormat.utf8OrNull(pathBytes);
            if (path == null) {
                return Decoded.malformed("path is not UTF-8");
            }
            Decoded decoded = decodeFields(op, path, in);
            if (decoded.ok() && in.hasRemaining()) {
                return Decoded.malformed(in.remaining() + " trailing bytes");
            }
            return decoded;
        } catch (BufferUnderflowException e) {
            return Decoded.malformed("truncated command (" + bytes.remaining() + " bytes)");
        } catch (IllegalArgumentException e) {
            return Decoded.malformed(e.getMessage());
        }
    }

    /**
     * The command of opcode {@code op} on {@code path} from the fields after the path (any bytes
     * after them left for the caller), or why the fields are malformed.
     *
     * @throws BufferUnderflowException if the fields are truncated
     * @throws IllegalArgumentException if a field is out of the command's range
     */
    private static Decoded decodeFields(byte op, String path, ByteBuffer in) {
        switch (op) {
            case VoleryCommand.OP_CREATE -> {
                int flag = in.getInt();
                CreateMode mode = CreateMode.fromFlag(flag);
                if (mode == null) {
                    return Decoded.malformed("unknown create mode " + flag);
                }
                byte[] data = data(in);
                if (data == null) {
                    return Decoded.malformed("bad data length");
                }
                long owner = mode.isEphemeral() ? in.getLong() : 0L;
                int timeout = mode.isEphemeral() ? in.getInt() : 0;
                if (mode.isEphemeral() && (owner == 0 || timeout <= 0)) {
                    return Decoded.malformed("ephemeral create without a session");
                }
                return found(new Create(path, data, mode, time(in), owner, timeout));
            }
            case VoleryCommand.OP_DELETE -> {
                return found(new Delete(path, in.getInt()));
            }
            case VoleryCommand.OP_CHECK -> {
                return found(new Check(path, in.getInt()));
            }
            case VoleryCommand.OP_MULTI, VoleryCommand.OP_SESSION_TICK, VoleryCommand.OP_CLOSE_SESSION -> {
                if (!path.isEmpty()) {
                    return Decoded.malformed("a " + (op == VoleryCommand.OP_MULTI ? "multi" : "session command")
                            + " with a path");
                }
                return op == VoleryCommand.OP_MULTI ? multi(in)
                        : op == VoleryCommand.OP_CLOSE_SESSION ? found(new CloseSession(in.getLong(), time(in)))
                        : tick(in);
            }
            case VoleryCommand.OP_SET_DATA -> {
                int version = in.getInt();
                byte[] data = data(in);
                if (data == null) {
                    return Decoded.malformed("bad data length");
                }
                return found(new SetData(path, data, version, time(in)));
            }
            case VoleryCommand.OP_GET_DATA -> {
                return found(new GetData(path, optionalWatcher(in)));
            }
            case VoleryCommand.OP_EXISTS -> {
                return found(new Exists(path, optionalWatcher(in)));
            }
            case VoleryCommand.OP_GET_CHILDREN -> {
                return found(new GetChildren(path, optionalWatcher(in)));
            }
            case VoleryCommand.OP_ADD_WATCH -> {
                byte recursive = in.get();
                if (recursive != 0 && recursive != 1) {
                    return Decoded.malformed("addWatch mode " + recursive);
                }
                return found(new AddWatch(path, recursive == 1, watcher(in)));
            }
            case VoleryCommand.OP_REMOVE_WATCHES -> {
                int type = in.getInt();
                return found(new RemoveWatches(path, type, watcher(in)));
            }
            case VoleryCommand.OP_WATCH_POLL, VoleryCommand.OP_WATCH_DROP -> {
                if (!path.isEmpty()) {
                    return Decoded.malformed("a watch command with a path");
                }
                int partition = in.getInt();
                int frontEnd = in.getInt();
                long value = in.getLong();
                if (partition < 0 || frontEnd < 0 || frontEnd > Watcher.MAX_FRONT_END
                        || op == VoleryCommand.OP_WATCH_POLL && value < 0) {
                    return Decoded.malformed("watch command out of range");
                }
                return found(op == VoleryCommand.OP_WATCH_POLL ? new WatchPoll(partition, frontEnd, value)
                        : new WatchDrop(partition, frontEnd, value));
            }
            default -> {
                return Decoded.malformed("unknown opcode " + op);
            }
        }
    }

    /** A multi's operations and time, from after its path. */
    private static Decoded multi(ByteBuffer in) {
        int count = in.getInt();
        if (count < 1 || count > Multi.MAX_OPS || count > in.remaining() / Integer.BYTES) {
            return Decoded.malformed("multi of " + count + " operations");
        }
        List<VoleryCommand> ops = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int length = in.getInt();
            if (length < 0 || length > in.remaining()) {
                return Decoded.malformed("multi operation " + i + " of " + length + " bytes");
            }
            ByteBuffer one = in.slice();
            one.limit(length);
            in.position(in.position() + length);
            Decoded d = decode(one);
            if (!d.ok()) {
                return Decoded.malformed("multi operation " + i + ": " + d.error());
            }
            if (!Multi.isOperation(d.command()) || d.command().time() != 0) {
                return Decoded.malformed("multi operation " + i + " is " + d.command().getClass().getSimpleName()
                        + (d.command().time() != 0 ? " with a time" : ""));
            }
            ops.add(d.command());
        }
        return found(new Multi(ops, time(in)));
    }

    /** A session tick's sessions and time, from after its path. */
    private static Decoded tick(ByteBuffer in) {
        int count = in.getInt();
        if (count < 0 || count > SessionTick.MAX_SESSIONS || count > in.remaining() / Long.BYTES) {
            return Decoded.malformed("session tick of " + count + " sessions");
        }
        long[] ids = new long[count];
        for (int i = 0; i < count; i++) {
            ids[i] = in.getLong();
        }
        return found(new SessionTick(ids, time(in)));
    }

    private static Decoded found(VoleryCommand command) {
        return new Decoded(command, null);
    }

    private static void putWatcher(ByteBuffer out, Watcher watcher) {
        out.putInt(watcher.frontEnd()).putLong(watcher.session());
    }

    /**
     * A watcher: int frontEnd, long session.
     *
     * @throws IllegalArgumentException if the front end is out of range (the bytes are malformed)
     */
    private static Watcher watcher(ByteBuffer in) {
        return new Watcher(in.getInt(), in.getLong());
    }

    /**
     * The optional trailing watcher of a read: 12 bytes left → that watcher, else null (leftovers stay).
     *
     * @throws IllegalArgumentException if the front end is out of range (the bytes are malformed)
     */
    private static Watcher optionalWatcher(ByteBuffer in) {
        return in.remaining() == Integer.BYTES + Long.BYTES ? watcher(in) : null;
    }

    /** The optional trailing time: 8 bytes left → that long, else 0 (other leftovers stay, as trailing bytes). */
    private static long time(ByteBuffer in) {
        return in.remaining() == Long.BYTES ? in.getLong() : 0L;
    }

    /** int length, then that many bytes; null if the length is out of bounds. */
    private static byte[] data(ByteBuffer in) {
        int length = in.getInt();
        if (length < 0 || length > VoleryCommand.MAX_DATA_BYTES || length > in.remaining()) {
            return null;
        }
        byte[] data = new byte[length];
        in.get(data);
        return data;
    }
}
