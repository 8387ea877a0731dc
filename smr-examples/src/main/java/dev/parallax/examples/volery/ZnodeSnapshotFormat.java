package dev.parallax.examples.volery;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The binary snapshot of a {@link ZnodeTree}, version 2 (big-endian):
 * <pre>
 *   int   magic 0x564C5259 ("VLRY")
 *   byte  format version (1)
 *   int   node count n (&gt;= 1, the root included)
 *   n x { int pathLength, pathLength bytes UTF-8 path,
 *         long czxid, long mzxid, long pzxid, long ctime, long mtime,
 *         int version, int cversion, int aversion, long ephemeralOwner (0: persistent),
 *         int dataLength, dataLength bytes data }
 *   the sessions ({@link ZnodeSessions}: long now, int live, live x (long id, int timeoutMs,
 *         long lastSeen), int ended, ended x long id)
 * </pre>
 * Version 1 has no sessions and every ephemeralOwner 0; it is still read.
 * Nodes come in ascending path order (String order), so the root comes first and every parent before
 * its children; children lists, numChildren and dataLength are derived, not stored. Equal trees
 * give equal bytes. {@link #read} checks everything (magic, version, lengths against the bytes left,
 * UTF-8, path validity, strict order, parent present, no trailing bytes) and answers a malformed
 * snapshot with an {@link IllegalArgumentException} naming the reason.
 *
 * <p>Stateless; safe from any thread (the tree it reads or writes must not change meanwhile).
 */
public final class ZnodeSnapshotFormat {
    /** The magic number the format starts with ("VLRY"). */
    public static final int MAGIC = 0x564C5259;
    /** The format version this class writes. */
    public static final byte VERSION = 2;
    /** The first format version, without sessions; still read. */
    public static final byte VERSION_1 = 1;

    private static final int MIN_NODE_BYTES = 4 + 5 * 8 + 3 * 4 + 8 + 4;
    private static final long DIGEST_MASK = (1L << 52) - 1;

    private ZnodeSnapshotFormat() {
    }

    static byte[] write(ZnodeTree tree) {
        Map<String, ZnodeTree.Znode> nodes = tree.nodes();
        List<String> paths = new ArrayList<>(nodes.keySet());
        paths.sort(null);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeByte(VERSION);
            out.writeInt(paths.size());
            for (String path : paths) {
                ZnodeTree.Znode n = nodes.get(path);
                byte[] p = path.getBytes(StandardCharsets.UTF_8);
                out.writeInt(p.length);
                out.write(p);
                out.writeLong(n.czxid);
                out.writeLong(n.mzxid);
                out.writeLong(n.pzxid);
                out.writeLong(n.ctime);
                out.writeLong(n.mtime);
                out.writeInt(n.version);
                out.writeInt(n.cversion);
                out.writeInt(n.aversion);
                out.writeLong(n.ephemeralOwner);
                out.writeInt(n.data.length);
                out.write(n.data);
            }
            tree.sessions().write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not throw
        }
        return bytes.toByteArray();
    }

    static ZnodeTree read(byte[] snapshot) {
        if (snapshot == null) {
            throw bad("snapshot is null");
        }
        ByteBuffer in = ByteBuffer.wrap(snapshot);
        try {
            int magic = in.getInt();
            if (magic != MAGIC) {
                throw bad("magic " + Integer.toHexString(magic));
            }
            byte version = in.get();
            if (version != VERSION && version != VERSION_1) {
                throw bad("unsupported version " + version);
            }
            int count = in.getInt();
            if (count < 1 || count > in.remaining() / MIN_NODE_BYTES) {
                throw bad("node count " + count + " for " + in.remaining() + " bytes");
            }
            ZnodeTree tree = new ZnodeTree();
            Map<String, ZnodeTree.Znode> nodes = tree.nodes();
            nodes.clear();
            String previous = null;
            Map<String, Long> ephemerals = new java.util.TreeMap<>();
            for (int i = 0; i < count; i++) {
                String path = utf8(bytes(in, "path"));
                String invalid = ZkPaths.invalidReason(path);
                if (invalid != null) {
                    throw bad("node " + i + ": invalid path: " + invalid);
                }
                if (previous == null ? !path.equals(ZkPaths.ROOT) : path.compareTo(previous) <= 0) {
                    throw bad("node " + i + " (" + path + ") out of order");
                }
                long czxid = in.getLong();
                long mzxid = in.getLong();
                long pzxid = in.getLong();
                long ctime = in.getLong();
                long mtime = in.getLong();
                int nodeVersion = in.getInt();
                int cversion = in.getInt();
                int aversion = in.getInt();
                long ephemeralOwner = in.getLong();
                if (ephemeralOwner != 0 && (version == VERSION_1 || previous == null)) {
                    throw bad("node " + path + ": ephemeral owner " + ephemeralOwner);
                }
                byte[] data = bytes(in, "data");
                ZnodeTree.Znode node = new ZnodeTree.Znode(data, czxid, mzxid, pzxid, ctime, mtime, nodeVersion,
                        cversion, aversion, ephemeralOwner);
                if (previous != null) {
                    ZnodeTree.Znode parent = nodes.get(ZkPaths.parent(path));
                    if (parent == null) {
                        throw bad("node " + path + " has no parent");
                    }
                    if (parent.ephemeralOwner != 0) {
                        throw bad("node " + path + " has an ephemeral parent");
                    }
                    parent.children.add(ZkPaths.name(path));
                }
                if (ephemeralOwner != 0) {
                    ephemerals.put(path, ephemeralOwner);
                }
                nodes.put(path, node);
                previous = path;
            }
            if (version == VERSION) {
                try {
                    tree.sessions().read(in);
                } catch (IllegalArgumentException e) {
                    throw bad(e.getMessage());
                }
                for (Map.Entry<String, Long> e : ephemerals.entrySet()) {
                    if (!tree.sessions().isLive(e.getValue())) {
                        throw bad("node " + e.getKey() + ": owner 0x" + Long.toHexString(e.getValue())
                                + " is not a live session");
                    }
                    tree.sessions().owns(e.getValue(), e.getKey());
                }
            }
            if (in.hasRemaining()) {
                throw bad(in.remaining() + " trailing bytes after the " + (version == VERSION ? "sessions" : "last node"));
            }
            return tree;
        } catch (BufferUnderflowException e) {
            throw bad("truncated (" + snapshot.length + " bytes)");
        }
    }

    static long digest(byte[] snapshot) {
        try {
            byte[] sha = MessageDigest.getInstance("SHA-256").digest(snapshot);
            return ByteBuffer.wrap(sha).getLong() & DIGEST_MASK;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    private static byte[] bytes(ByteBuffer in, String what) {
        int length = in.getInt();
        if (length < 0 || length > in.remaining()) {
            throw bad(what + " length " + length + " (" + in.remaining() + " bytes left)");
        }
        byte[] b = new byte[length];
        in.get(b);
        return b;
    }

    private static String utf8(byte[] b) {
        String s = utf8OrNull(ByteBuffer.wrap(b));
        if (s == null) {
            throw bad("path is not UTF-8");
        }
        return s;
    }

    private static IllegalArgumentException bad(String reason) {
        return new IllegalArgumentException("malformed znode snapshot: " + reason);
    }

    /** Decodes strict UTF-8, or returns null if {@code b} is not UTF-8 (shared with {@link VoleryCodec}). */
    static String utf8OrNull(ByteBuffer b) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(b).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
