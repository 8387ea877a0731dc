package dev.parallax.examples.volery;

import dev.parallax.core.GroupSet;
import dev.parallax.scheduler.ssmr.ExecutionContext;
import dev.parallax.scheduler.ssmr.PartitionView;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The variables a {@link Multi} exchanges between partitions (seed 004 (S-SMR) §IV Alg. 1 l.13-19):
 * the versions of the nodes its checks, setData and versioned deletes name, each sent by the node's
 * owner. Values, big-endian: {@code int count, count x (int pathLength, UTF-8 path, int version)},
 * the existing nodes this partition owns, in path order ({@link MultiRun} rule 3 reads them).
 *
 * <p>Stateless; called on the partition's executing thread. Nothing blocks.
 */
final class MultiVersions {
    private MultiVersions() {
    }

    /** The paths whose owner's version the run needs, in path order. */
    private static TreeSet<String> versioned(Multi m) {
        TreeSet<String> paths = new TreeSet<>();
        for (VoleryCommand op : m.ops()) {
            if (op instanceof Check || op instanceof SetData
                    || op instanceof Delete d && d.version() != ZnodeTree.ANY_VERSION) {
                paths.add(op.path());
            }
        }
        return paths;
    }

    /** This partition's values for {@code m}: the versions of the versioned paths it owns. */
    static ByteBuffer local(Multi m, ZnodeTree tree, PartitionView view) {
        List<byte[]> paths = new ArrayList<>();
        List<Integer> versions = new ArrayList<>();
        int size = Integer.BYTES;
        for (String path : versioned(m)) {
            ZnodeTree.Znode node = VoleryOracle.partitionOf(path, view.partitions()) == view.partition()
                    ? tree.node(path) : null;
            if (node != null) {
                byte[] p = path.getBytes(StandardCharsets.UTF_8);
                paths.add(p);
                versions.add(node.version);
                size += 2 * Integer.BYTES + p.length;
            }
        }
        ByteBuffer out = ByteBuffer.allocate(size).putInt(paths.size());
        for (int i = 0; i < paths.size(); i++) {
            out.putInt(paths.get(i).length).put(paths.get(i)).putInt(versions.get(i));
        }
        return out.flip();
    }

    /** The other partitions whose values {@code m} needs here, or null if none. */
    static GroupSet owners(Multi m, PartitionView view) {
        long bits = 0;
        for (String path : versioned(m)) {
            int owner = VoleryOracle.partitionOf(path, view.partitions());
            if (owner != view.partition() && view.involved().contains(owner)) {
                bits |= 1L << owner;
            }
        }
        return bits == 0 ? null : GroupSet.ofBits(bits);
    }

    /**
     * The owners' versions, read from the values of the partitions {@link #owners} named.
     *
     * @throws IllegalStateException if a partition's values are malformed
     */
    static Map<String, Integer> remote(Multi m, ExecutionContext context) {
        Map<String, Integer> versions = new HashMap<>();
        GroupSet owners = owners(m, context);
        if (owners == null) {
            return versions;
        }
        for (int p = owners.first(); p >= 0; p = owners.next(p)) {
            ByteBuffer in = context.valuesOf(p);
            try {
                int count = in.getInt();
                if (count < 0 || count > in.remaining() / (2 * Integer.BYTES)) {
                    throw new IllegalStateException("partition " + p + " sent " + count + " multi versions");
                }
                for (int i = 0; i < count; i++) {
                    int length = in.getInt();
                    if (length < 0 || length > in.remaining()) {
                        throw new IllegalStateException("partition " + p + " sent a path of " + length + " bytes");
                    }
                    byte[] path = new byte[length];
                    in.get(path);
                    versions.put(new String(path, StandardCharsets.UTF_8), in.getInt());
                }
            } catch (BufferUnderflowException e) {
                throw new IllegalStateException("partition " + p + " sent truncated multi versions", e);
            }
        }
        return versions;
    }
}
