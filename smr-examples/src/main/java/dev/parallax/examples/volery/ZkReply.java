package dev.parallax.examples.volery;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The result of one znode operation: a {@link ZkCode} and, on success, what the operation returns in
 * ZooKeeper — the created path (create), the data (getData), the node's {@link Stat} (setData,
 * getData, exists, getChildren) and the sorted child names (getChildren). Fields an operation does
 * not return are null. On an error every field but the code and the zxid is null.
 *
 * <p>Every reply also carries a zxid ({@link #zxid()}): the zxid the command executed at (a write,
 * failed ones included, since they consume a zxid as ZooKeeper's error transactions do), or, for a
 * read, the last zxid of the state it read (ZooKeeper's reply-header zxid). The factories make
 * replies with zxid 0; {@link #withZxid(long)} sets it ({@link ZnodeTree}'s writes and
 * {@link VoleryCommand#applyTo} do).
 *
 * <p>Wire encoding ({@link #encode()}, {@link #decode(ByteBuffer)}), big-endian, what a Volery
 * partition returns from {@code execute} and a front end decodes:
 * <pre>
 *   byte  format version ({@link #FORMAT_VERSION} = 2)
 *   int   code (ZooKeeper's numeric code, {@link ZkCode#code()})
 *   long  zxid (non-negative; absent in version 1, which decodes with zxid 0)
 *   byte  fields present: bit 0 path, bit 1 data, bit 2 stat, bit 3 children, bit 4 events (0 for an error)
 *   path:     int length (0..{@link VoleryCommand#MAX_PATH_BYTES}), UTF-8 bytes
 *   data:     int length (0..{@link VoleryCommand#MAX_DATA_BYTES}), bytes
 *   stat:     long czxid, long mzxid, long ctime, long mtime, int version, int cversion,
 *             int aversion, long ephemeralOwner, int dataLength, int numChildren, long pzxid
 *             ({@link Stat}'s order, ZooKeeper's data.Stat; 68 bytes)
 *   children: int count, count x (int length, UTF-8 name)
 *   events:   int count, count x (long seq, long session, byte type, int length, UTF-8 path)
 *             (a {@link WatchPoll}'s answer, {@link WatchEvent})
 *   results:  int count, count x (int length, a reply's encoding without results) (bit 5; a
 *             {@link Multi}'s answer, with its code: OK, or the first failed operation's)
 * </pre>
 * present fields in that order, nothing after. The field combinations are those the factories make:
 * none (an error, or delete's OK), path (+ stat: create), stat, data + stat, children + stat, events,
 * children alone (a {@link SessionTick}'s statuses), results (a {@link Multi}'s, with any code).
 * Equal replies encode to equal bytes. {@link #decode(ByteBuffer)} reads versions 1 and 2 and never
 * throws: bytes it cannot read (truncated, trailing bytes, unknown version, code or field
 * combination, a negative zxid, bad lengths, invalid UTF-8) decode to {@link #malformed()}, the error
 * reply {@link ZkCode#MARSHALLINGERROR}.
 *
 * <p>Immutable (the data array is copied in and out); safe from any thread. Equal replies have equal
 * fields, data compared by content.
 */
public final class ZkReply {
    /** The version of the wire encoding {@link #encode()} writes and {@link #decode} reads. */
    public static final byte FORMAT_VERSION = 2;
    /** The first encoding: as version 2 without the zxid; {@link #decode} still reads it (zxid 0). */
    public static final byte FORMAT_VERSION_1 = 1;

    private static final int HAS_PATH = 1;
    private static final int HAS_DATA = 2;
    private static final int HAS_STAT = 4;
    private static final int HAS_CHILDREN = 8;
    private static final int HAS_EVENTS = 16;
    private static final int HAS_RESULTS = 32;
    private static final int STAT_BYTES = 8 * 4 + 4 * 3 + 8 + 4 * 2 + 8;

    private static final ZkReply OK_EMPTY = new ZkReply(ZkCode.OK, null, null, null, null, 0L);
    private static final ZkReply MALFORMED = new ZkReply(ZkCode.MARSHALLINGERROR, null, null, null, null, 0L);

    private final ZkCode code;
    private final String path;
    private final byte[] data;
    private final Stat stat;
    private final List<String> children;
    private final long zxid;
    private final List<WatchEvent> events;
    private final List<ZkReply> results;

    private ZkReply(ZkCode code, String path, byte[] data, Stat stat, List<String> children) {
        this(code, path, data, stat, children, 0L);
    }

    private ZkReply(ZkCode code, String path, byte[] data, Stat stat, List<String> children, long zxid) {
        this(code, path, data, stat, children, zxid, null);
    }

    private ZkReply(ZkCode code, String path, byte[] data, Stat stat, List<String> children, long zxid,
                    List<WatchEvent> events) {
        this(code, path, data, stat, children, zxid, events, null);
    }

    private ZkReply(ZkCode code, String path, byte[] data, Stat stat, List<String> children, long zxid,
                    List<WatchEvent> events, List<ZkReply> results) {
        this.results = results;
        this.code = Objects.requireNonNull(code, "code");
        this.path = path;
        this.data = data;
        this.stat = stat;
        this.children = children;
        this.zxid = zxid;
        this.events = events;
    }

    /** An error reply. @throws IllegalArgumentException if {@code code} is {@link ZkCode#OK} */
    public static ZkReply error(ZkCode code) {
        if (code == ZkCode.OK) {
            throw new IllegalArgumentException("an error reply needs an error code");
        }
        return new ZkReply(code, null, null, null, null);
    }

    /** A success without a result (delete). */
    public static ZkReply ok() {
        return OK_EMPTY;
    }

    /** A create's success: the path it created (no stat). */
    public static ZkReply created(String path) {
        return new ZkReply(ZkCode.OK, Objects.requireNonNull(path, "path"), null, null, null);
    }

    /** A create's success: the path it created and the new node's stat (what create2 returns). */
    public static ZkReply created(String path, Stat stat) {
        return new ZkReply(ZkCode.OK, Objects.requireNonNull(path, "path"), null, Objects.requireNonNull(stat, "stat"),
                null);
    }

    /**
     * The reply to bytes that cannot be decoded (a malformed command, or reply bytes {@link #decode}
     * cannot read): {@link ZkCode#MARSHALLINGERROR}, no fields.
     */
    public static ZkReply malformed() {
        return MALFORMED;
    }

    /** A success returning a node's stat (setData, exists). */
    public static ZkReply stat(Stat stat) {
        return new ZkReply(ZkCode.OK, null, null, Objects.requireNonNull(stat, "stat"), null);
    }

    /** A getData success. */
    public static ZkReply data(byte[] data, Stat stat) {
        return new ZkReply(ZkCode.OK, null, data.clone(), Objects.requireNonNull(stat, "stat"), null);
    }

    /** A getChildren success. */
    public static ZkReply children(List<String> children, Stat stat) {
        return new ZkReply(ZkCode.OK, null, null, Objects.requireNonNull(stat, "stat"), List.copyOf(children));
    }

    /** A watch poll's answer: the queued events, in order ({@link ZnodeWatches#poll}). */
    public static ZkReply events(List<WatchEvent> events) {
        return new ZkReply(ZkCode.OK, null, null, null, null, 0L, List.copyOf(events));
    }

    /**
     * A {@link SessionTick}'s answer: one {@link ZnodeSessions.Status#tag()} per listed session, in
     * the order listed (children only).
     */
    public static ZkReply sessionStatuses(List<String> tags) {
        return new ZkReply(ZkCode.OK, null, null, null, List.copyOf(tags));
    }

    /**
     * A {@link Multi}'s answer: one result per operation ({@code results}, none of which holds
     * results itself), and {@code code}, OK if every operation succeeded, else the first failure's.
     *
     * @throws IllegalArgumentException if a result holds results
     */
    public static ZkReply results(ZkCode code, List<ZkReply> results) {
        for (ZkReply r : results) {
            if (r.results != null) {
                throw new IllegalArgumentException("a multi's result holds results");
            }
        }
        return new ZkReply(code, null, null, null, null, 0L, null, List.copyOf(results));
    }

    /**
     * This reply with zxid {@code zxid} (the zxid the command executed at, or a read's last zxid).
     *
     * @throws IllegalArgumentException if {@code zxid} is negative
     */
    public ZkReply withZxid(long zxid) {
        if (zxid < 0) {
            throw new IllegalArgumentException("negative zxid: " + zxid);
        }
        return zxid == this.zxid ? this : new ZkReply(code, path, data, stat, children, zxid, events, results);
    }

    /** The zxid the command executed at (a write) or of the state it read (a read); 0 if not set. */
    public long zxid() {
        return zxid;
    }

    /** The result code. */
    public ZkCode code() {
        return code;
    }

    /** Whether the code is {@link ZkCode#OK}. */
    public boolean isOk() {
        return code == ZkCode.OK;
    }

    /** The created path (create), else null. */
    public String path() {
        return path;
    }

    /** A copy of the data (getData), else null. */
    public byte[] data() {
        return data == null ? null : data.clone();
    }

    /** The events a watch poll returns, else null. */
    public List<WatchEvent> events() {
        return events;
    }

    /** A multi's per-operation results, else null. */
    public List<ZkReply> results() {
        return results;
    }

    /** The node's stat (create, setData, getData, exists, getChildren), else null. */
    public Stat stat() {
        return stat;
    }

    /** The child names in ascending order (getChildren), else null. */
    public List<String> children() {
        return children;
    }

    /** This reply in the wire encoding described on the class. */
    public byte[] encode() {
        byte[] pathBytes = path == null ? null : path.getBytes(StandardCharsets.UTF_8);
        List<byte[]> names = new ArrayList<>();
        int size = 1 + 4 + 8 + 1;
        int fields = 0;
        if (pathBytes != null) {
            fields |= HAS_PATH;
            size += 4 + pathBytes.length;
        }
        if (data != null) {
            fields |= HAS_DATA;
            size += 4 + data.length;
        }
        if (stat != null) {
            fields |= HAS_STAT;
            size += STAT_BYTES;
        }
        if (children != null) {
            fields |= HAS_CHILDREN;
            size += 4;
            for (String child : children) {
                byte[] name = child.getBytes(StandardCharsets.UTF_8);
                names.add(name);
                size += 4 + name.length;
            }
        }
        List<byte[]> eventPaths = new ArrayList<>();
        if (events != null) {
            fields |= HAS_EVENTS;
            size += 4;
            for (WatchEvent e : events) {
                byte[] p = e.path().getBytes(StandardCharsets.UTF_8);
                eventPaths.add(p);
                size += 8 + 8 + 1 + 4 + p.length;
            }
        }
        List<byte[]> nested = new ArrayList<>();
        if (results != null) {
            fields |= HAS_RESULTS;
            size += 4;
            for (ZkReply r : results) {
                byte[] b = r.encode();
                nested.add(b);
                size += 4 + b.length;
            }
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put(FORMAT_VERSION).putInt(code.code()).putLong(zxid).put((byte) fields);
        if (pathBytes != null) {
            out.putInt(pathBytes.length).put(pathBytes);
        }
        if (data != null) {
            out.putInt(data.length).put(data);
        }
        if (stat != null) {
            out.putLong(stat.czxid()).putLong(stat.mzxid()).putLong(stat.ctime()).putLong(stat.mtime())
                    .putInt(stat.version()).putInt(stat.cversion()).putInt(stat.aversion())
                    .putLong(stat.ephemeralOwner()).putInt(stat.dataLength()).putInt(stat.numChildren())
                    .putLong(stat.pzxid());
        }
        if (children != null) {
            out.putInt(names.size());
            for (byte[] name : names) {
                out.putInt(name.length).put(name);
            }
        }
        if (events != null) {
            out.putInt(events.size());
            for (int i = 0; i < events.size(); i++) {
                WatchEvent e = events.get(i);
                out.putLong(e.seq()).putLong(e.session()).put((byte) e.type()).putInt(eventPaths.get(i).length)
                        .put(eventPaths.get(i));
            }
        }
        if (results != null) {
            out.putInt(nested.size());
            for (byte[] b : nested) {
                out.putInt(b.length).put(b);
            }
        }
        return out.array();
    }

    /** Decodes {@code bytes}; null or unreadable bytes give {@link #malformed()}. Never throws. */
    public static ZkReply decode(byte[] bytes) {
        return bytes == null ? MALFORMED : decode(ByteBuffer.wrap(bytes));
    }

    /**
     * Decodes the bytes from the buffer's position to its limit, without moving either. Never
     * throws: null or unreadable bytes give {@link #malformed()}.
     */
    public static ZkReply decode(ByteBuffer bytes) {
        return decode(bytes, true);
    }

    private static ZkReply decode(ByteBuffer bytes, boolean outer) {
        if (bytes == null) {
            return MALFORMED;
        }
        ByteBuffer in = bytes.duplicate(); // a duplicate is big-endian
        try {
            byte version = in.get();
            if (version != FORMAT_VERSION && version != FORMAT_VERSION_1) {
                return MALFORMED;
            }
            ZkCode code = ZkCode.fromCode(in.getInt());
            long zxid = version == FORMAT_VERSION ? in.getLong() : 0L;
            int fields = in.get();
            if (code == null || zxid < 0 || !validFields(code, fields) || !outer && (fields & HAS_RESULTS) != 0) {
                return MALFORMED;
            }
            String path = null;
            byte[] data = null;
            Stat stat = null;
            List<String> children = null;
            if ((fields & HAS_PATH) != 0) {
                path = utf8(in, VoleryCommand.MAX_PATH_BYTES);
                if (path == null) {
                    return MALFORMED;
                }
            }
            if ((fields & HAS_DATA) != 0) {
                int length = in.getInt();
                if (length < 0 || length > VoleryCommand.MAX_DATA_BYTES || length > in.remaining()) {
                    return MALFORMED;
                }
                data = new byte[length];
                in.get(data);
            }
            if ((fields & HAS_STAT) != 0) {
                stat = new Stat(in.getLong(), in.getLong(), in.getLong(), in.getLong(), in.getInt(), in.getInt(),
                        in.getInt(), in.getLong(), in.getInt(), in.getInt(), in.getLong());
            }
            if ((fields & HAS_CHILDREN) != 0) {
                int count = in.getInt();
                if (count < 0 || count > in.remaining() / 4) {
                    return MALFORMED;
                }
                List<String> names = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    String name = utf8(in, VoleryCommand.MAX_PATH_BYTES);
                    if (name == null) {
                        return MALFORMED;
                    }
                    names.add(name);
                }
                children = List.copyOf(names);
            }
            List<WatchEvent> events = null;
            if ((fields & HAS_EVENTS) != 0) {
                int count = in.getInt();
                if (count < 0 || count > in.remaining() / 21) {
                    return MALFORMED;
                }
                List<WatchEvent> read = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    long seq = in.getLong();
                    long session = in.getLong();
                    int type = in.get();
                    String eventPath = utf8(in, VoleryCommand.MAX_PATH_BYTES);
                    if (eventPath == null || type < WatchEvent.NODE_CREATED || type > WatchEvent.NODE_CHILDREN_CHANGED) {
                        return MALFORMED;
                    }
                    read.add(new WatchEvent(seq, session, type, eventPath));
                }
                events = List.copyOf(read);
            }
            List<ZkReply> results = null;
            if ((fields & HAS_RESULTS) != 0) {
                int count = in.getInt();
                if (count < 0 || count > in.remaining() / 4) {
                    return MALFORMED;
                }
                List<ZkReply> read = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    int length = in.getInt();
                    if (length < 0 || length > in.remaining()) {
                        return MALFORMED;
                    }
                    ByteBuffer one = in.slice();
                    one.limit(length);
                    in.position(in.position() + length);
                    ZkReply r = decode(one, false);
                    if (r == MALFORMED) {
                        return MALFORMED;
                    }
                    read.add(r);
                }
                results = List.copyOf(read);
            }
            if (in.hasRemaining()) {
                return MALFORMED;
            }
            return new ZkReply(code, path, data, stat, children, zxid, events, results);
        } catch (BufferUnderflowException e) {
            return MALFORMED;
        }
    }

    /** Whether {@code fields} is a combination the factories make for {@code code}. */
    private static boolean validFields(ZkCode code, int fields) {
        if (code != ZkCode.OK) {
            return fields == 0 || fields == HAS_RESULTS;
        }
        return fields == 0 || fields == HAS_RESULTS || fields == HAS_CHILDREN || fields == HAS_PATH || fields == (HAS_PATH | HAS_STAT) || fields == HAS_STAT
                || fields == (HAS_DATA | HAS_STAT) || fields == (HAS_CHILDREN | HAS_STAT) || fields == HAS_EVENTS;
    }

    /** A length-prefixed strict UTF-8 string of at most {@code max} bytes, or null if not one. */
    private static String utf8(ByteBuffer in, int max) {
        int length = in.getInt();
        if (length < 0 || length > max || length > in.remaining()) {
            return null;
        }
        ByteBuffer slice = in.slice();
        slice.limit(length);
        in.position(in.position() + length);
        return ZnodeSnapshotFormat.utf8OrNull(slice);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ZkReply r && code == r.code && Objects.equals(path, r.path) && Arrays.equals(data, r.data)
                && Objects.equals(stat, r.stat) && Objects.equals(children, r.children) && zxid == r.zxid
                && Objects.equals(events, r.events) && Objects.equals(results, r.results);
    }

    @Override
    public int hashCode() {
        return Objects.hash(code, path, Arrays.hashCode(data), stat, children, zxid, events, results);
    }

    @Override
    public String toString() {
        return "ZkReply[" + code + " zxid=0x" + Long.toHexString(zxid) + (path == null ? "" : " path=" + path)
                + (data == null ? "" : " data=" + data.length + "B") + (stat == null ? "" : " " + stat)
                + (children == null ? "" : " children=" + children) + (events == null ? "" : " events=" + events)
                + (results == null ? "" : " results=" + results) + "]";
    }
}
