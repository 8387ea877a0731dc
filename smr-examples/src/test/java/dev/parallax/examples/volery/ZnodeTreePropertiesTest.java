package dev.parallax.examples.volery;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import static dev.parallax.examples.volery.CreateMode.CONTAINER;
import static dev.parallax.examples.volery.CreateMode.PERSISTENT;
import static dev.parallax.examples.volery.CreateMode.PERSISTENT_SEQUENTIAL;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random operation sequences give the same replies, snapshot bytes and digest on {@link ZnodeTree} as
 * on a deliberately naive reference model written here (a sorted map of paths; children found by
 * scanning; paths checked by splitting into segments), and a tree restored from a snapshot taken at
 * any point goes on exactly like the original.
 */
class ZnodeTreePropertiesTest {

    @Property(tries = 400)
    void theTreeBehavesLikeTheReferenceAndSurvivesASnapshotAnywhere(
            @ForAll("commands") List<VoleryCommand> commands, @ForAll @IntRange(min = 0, max = 60) int snapshotAt) {
        ZnodeTree tree = new ZnodeTree();
        ZnodeTree restored = null;
        Reference reference = new Reference();
        for (int i = 0; i < commands.size(); i++) {
            if (i == snapshotAt) {
                restored = ZnodeTree.restore(tree.snapshot());
            }
            VoleryCommand c = commands.get(i);
            long zxid = i + 1;
            long time = 1_000 + 3L * i;
            ZkReply expected = reference.apply(c, zxid, time).withZxid(zxid); // every reply carries the zxid given
            assertThat(tree.apply(c, zxid, time)).as("step %d: %s", i, c).isEqualTo(expected);
            if (restored != null) {
                assertThat(restored.apply(c, zxid, time)).as("restored, step %d: %s", i, c).isEqualTo(expected);
            }
        }
        byte[] referenceSnapshot = reference.snapshot();
        assertThat(tree.snapshot()).isEqualTo(referenceSnapshot);
        assertThat(tree.digest()).isEqualTo(Reference.digest(referenceSnapshot));
        assertThat(tree.size()).isEqualTo(reference.nodes.size());
        if (restored != null) {
            assertThat(restored.digest()).isEqualTo(tree.digest());
        }
    }

    @Property(tries = 200)
    void encodedCommandsRunAlike(@ForAll("commands") List<VoleryCommand> commands) {
        ZnodeTree direct = new ZnodeTree();
        ZnodeTree decoded = new ZnodeTree();
        for (int i = 0; i < commands.size(); i++) {
            VoleryCommand c = commands.get(i);
            VoleryCommand.Decoded d = VoleryCommand.decode(c.encode());
            assertThat(decoded.apply(d.command(), i, i)).isEqualTo(direct.apply(c, i, i));
        }
        assertThat(decoded.digest()).isEqualTo(direct.digest());
    }

    @Provide
    Arbitrary<List<VoleryCommand>> commands() {
        Arbitrary<String> path = paths();
        Arbitrary<byte[]> data = Arbitraries.bytes().array(byte[].class).ofMaxSize(4);
        Arbitrary<Integer> version = Arbitraries.integers().between(-1, 2);
        Arbitrary<CreateMode> mode = Arbitraries.frequency(
                Tuple.of(6, PERSISTENT), Tuple.of(3, PERSISTENT_SEQUENTIAL), Tuple.of(1, CONTAINER));
        Arbitrary<VoleryCommand> create = Combinators.combine(path, data, mode).as(Create::new);
        Arbitrary<VoleryCommand> delete = Combinators.combine(path, version).as(Delete::new);
        Arbitrary<VoleryCommand> setData = Combinators.combine(path, data, version).as(SetData::new);
        Arbitrary<VoleryCommand> getData = path.map(GetData::new);
        Arbitrary<VoleryCommand> exists = path.map(Exists::new);
        Arbitrary<VoleryCommand> children = path.map(GetChildren::new);
        return Arbitraries.frequencyOf(Tuple.of(6, create), Tuple.of(2, delete), Tuple.of(3, setData),
                        Tuple.of(1, getData), Tuple.of(1, exists), Tuple.of(2, children))
                .list().ofMinSize(1).ofMaxSize(60);
    }

    private static Arbitrary<String> paths() {
        Arbitrary<String> segment = Arbitraries.frequency(Tuple.of(10, "a"), Tuple.of(10, "b"), Tuple.of(5, "c"),
                Tuple.of(1, "."), Tuple.of(1, ".."), Tuple.of(1, ""), Tuple.of(1, "x\u0001"), Tuple.of(1, "é"));
        Arbitrary<String> relative = segment.list().ofMinSize(1).ofMaxSize(3).map(l -> String.join("/", l));
        return Arbitraries.frequencyOf(
                Tuple.of(16, relative.map(r -> "/" + r)),
                Tuple.of(1, relative),
                Tuple.of(2, relative.map(r -> "/" + r + "/")),
                Tuple.of(2, Arbitraries.just("/")));
    }

    /** A naive model of ZooKeeper's data tree. */
    static final class Reference {
        final TreeMap<String, Node> nodes = new TreeMap<>();

        Reference() {
            nodes.put("/", new Node(new byte[0], 0, 0));
        }

        ZkReply apply(VoleryCommand c, long zxid, long time) {
            if (c instanceof Create create) {
                return create(create.path(), create.data(), create.mode(), zxid, time);
            }
            String path = c.path();
            if (!valid(path)) {
                return ZkReply.error(ZkCode.BADARGUMENTS);
            }
            if (c instanceof Delete && path.equals("/")) {
                return ZkReply.error(ZkCode.BADARGUMENTS);
            }
            Node node = nodes.get(path);
            if (node == null) {
                return ZkReply.error(ZkCode.NONODE);
            }
            if (c instanceof Delete delete) {
                if (delete.version() != -1 && delete.version() != node.version) {
                    return ZkReply.error(ZkCode.BADVERSION);
                }
                if (!children(path).isEmpty()) {
                    return ZkReply.error(ZkCode.NOTEMPTY);
                }
                nodes.remove(path);
                Node parent = nodes.get(parentOf(path));
                parent.pzxid = Math.max(parent.pzxid, zxid);
                return ZkReply.ok();
            }
            if (c instanceof SetData set) {
                if (set.version() != -1 && set.version() != node.version) {
                    return ZkReply.error(ZkCode.BADVERSION);
                }
                node.data = set.data();
                node.version++;
                node.mzxid = zxid;
                node.mtime = time;
                return ZkReply.stat(stat(path));
            }
            if (c instanceof GetData) {
                return ZkReply.data(node.data, stat(path));
            }
            if (c instanceof Exists) {
                return ZkReply.stat(stat(path));
            }
            return ZkReply.children(children(path), stat(path));
        }

        private ZkReply create(String path, byte[] data, CreateMode mode, long zxid, long time) {
            if (mode != PERSISTENT && mode != PERSISTENT_SEQUENTIAL) {
                return ZkReply.error(ZkCode.UNIMPLEMENTED);
            }
            boolean sequential = mode == PERSISTENT_SEQUENTIAL;
            if (!valid(sequential ? path + "1" : path)) {
                return ZkReply.error(ZkCode.BADARGUMENTS);
            }
            if (!sequential && path.equals("/")) {
                return ZkReply.error(ZkCode.NODEEXISTS);
            }
            Node parent = nodes.get(parentOf(path + "0"));
            if (parent == null) {
                return ZkReply.error(ZkCode.NONODE);
            }
            String name = sequential ? path + String.format(Locale.ROOT, "%010d", parent.cversion) : path;
            if (nodes.containsKey(name)) {
                return ZkReply.error(ZkCode.NODEEXISTS);
            }
            nodes.put(name, new Node(data, zxid, time));
            parent.cversion++;
            parent.pzxid = zxid;
            return ZkReply.created(name, stat(name));
        }

        private List<String> children(String path) {
            List<String> names = new ArrayList<>();
            for (String p : nodes.keySet()) {
                if (!p.equals("/") && parentOf(p).equals(path)) {
                    names.add(p.substring(p.lastIndexOf('/') + 1));
                }
            }
            names.sort(null);
            return names;
        }

        private Stat stat(String path) {
            Node n = nodes.get(path);
            return new Stat(n.czxid, n.mzxid, n.ctime, n.mtime, n.version, n.cversion, 0, 0, n.data.length,
                    children(path).size(), n.pzxid);
        }

        private static String parentOf(String path) {
            String parent = path.substring(0, path.lastIndexOf('/'));
            return parent.isEmpty() ? "/" : parent;
        }

        private static boolean valid(String path) {
            if (path.isEmpty() || path.charAt(0) != '/') {
                return false;
            }
            if (path.equals("/")) {
                return true;
            }
            for (String segment : path.substring(1).split("/", -1)) {
                if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                    return false;
                }
                for (char ch : segment.toCharArray()) {
                    if (ch < 0x20 || ch >= 0x7f && ch <= 0x9f || ch >= 0xd800 && ch <= 0xf8ff || ch >= 0xfff0) {
                        return false;
                    }
                }
            }
            return true;
        }

        byte[] snapshot() {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(0x564C5259);
                out.writeByte(2);
                out.writeInt(nodes.size());
                for (Map.Entry<String, Node> e : nodes.entrySet()) {
                    byte[] p = e.getKey().getBytes(StandardCharsets.UTF_8);
                    Node n = e.getValue();
                    out.writeInt(p.length);
                    out.write(p);
                    for (long v : new long[] {n.czxid, n.mzxid, n.pzxid, n.ctime, n.mtime}) {
                        out.writeLong(v);
                    }
                    out.writeInt(n.version);
                    out.writeInt(n.cversion);
                    out.writeInt(0);
                    out.writeLong(0);
                    out.writeInt(n.data.length);
                    out.write(n.data);
                }
                out.writeLong(0); // no session: order time 0, no live and no ended sessions
                out.writeInt(0);
                out.writeInt(0);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            return bytes.toByteArray();
        }

        static long digest(byte[] snapshot) {
            try {
                return ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(snapshot)).getLong()
                        & ((1L << 52) - 1);
            } catch (NoSuchAlgorithmException e) {
                throw new AssertionError(e);
            }
        }

        static final class Node {
            byte[] data;
            final long czxid;
            final long ctime;
            long mzxid;
            long mtime;
            long pzxid;
            int version;
            int cversion;

            Node(byte[] data, long zxid, long time) {
                this.data = data;
                this.czxid = zxid;
                this.mzxid = zxid;
                this.pzxid = zxid;
                this.ctime = time;
                this.mtime = time;
            }
        }
    }
}
