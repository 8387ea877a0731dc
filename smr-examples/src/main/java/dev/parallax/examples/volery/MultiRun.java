package dev.parallax.examples.volery;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * One execution of a {@link Multi} at one partition, all or nothing. The rules:
 * <ol>
 *   <li>The operations run in order on the tree, journaled ({@link ZnodeTree#begin()}); the first
 *       that fails stops the run and every change is rolled back.</li>
 *   <li>Existence, children and sequence numbers come from the partition's own tree: every partition
 *       holds the whole hierarchy (creates and deletes go everywhere).</li>
 *   <li>A node's version comes from its owner: this tree's for a path this partition owns; for any
 *       other, the version its owner sent ({@code remoteVersions}, read before the run), then as the
 *       run's own operations change it (a setData adds one, a create sets 0). A setData of a node
 *       another partition owns changes nothing here (only the owner keeps data current, as for a
 *       plain setData) but answers the stat the owner answers.</li>
 *   <li>Watches fire only once the whole run succeeded, operation by operation.</li>
 * </ol>
 * Not thread-safe: runs on the tree's single writer. Nothing blocks.
 */
final class MultiRun {
    private final ZnodeTree tree;
    private final long zxid;
    private final long time;
    private final Predicate<String> ownedHere;
    private final Map<String, Integer> remoteVersions;
    private final Map<String, Integer> versions = new HashMap<>();

    private MultiRun(ZnodeTree tree, long zxid, long time, Predicate<String> ownedHere,
                     Map<String, Integer> remoteVersions) {
        this.tree = tree;
        this.zxid = zxid;
        this.time = time;
        this.ownedHere = ownedHere;
        this.remoteVersions = remoteVersions;
    }

    /**
     * Runs {@code ops} at {@code zxid} and {@code time} (rules 1-4); {@code watches} may be null.
     *
     * @param ownedHere      whether this partition owns a path
     * @param remoteVersions the owners' versions of the existing nodes this partition does not own
     *                       that the operations check
     * @throws IllegalStateException if an owner's version is missing (the tree is left unchanged)
     */
    static ZkReply run(ZnodeTree tree, ZnodeWatches watches, List<VoleryCommand> ops, long zxid, long time,
                       Predicate<String> ownedHere, Map<String, Integer> remoteVersions) {
        MultiRun run = new MultiRun(tree, zxid, time, ownedHere, remoteVersions);
        List<ZkReply> results = new ArrayList<>(ops.size());
        tree.begin();
        try {
            for (VoleryCommand op : ops) {
                ZkReply r = run.step(op);
                if (!r.isOk()) {
                    tree.rollback();
                    return failed(ops.size(), results.size(), r.code()).withZxid(zxid);
                }
                results.add(r);
            }
        } catch (RuntimeException e) {
            tree.rollback();
            throw e;
        }
        tree.commit();
        if (watches != null) {
            for (int i = 0; i < ops.size(); i++) {
                watches.onExecuted(ops.get(i), results.get(i));
            }
        }
        return ZkReply.results(ZkCode.OK, results).withZxid(zxid);
    }

    /** The results of a run whose operation {@code failed} answered {@code code}. */
    private static ZkReply failed(int count, int failed, ZkCode code) {
        List<ZkReply> results = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            results.add(i < failed ? ZkReply.ok() : ZkReply.error(i == failed ? code : ZkCode.RUNTIMEINCONSISTENCY));
        }
        return ZkReply.results(code, results);
    }

    private ZkReply step(VoleryCommand op) {
        if (op instanceof Create c) {
            ZkReply r = tree.create(c.path(), c.data(), c.mode(), c.owner(), c.timeoutMs(), zxid, time);
            if (r.isOk()) {
                versions.put(r.path(), 0);
            }
            return r;
        }
        if (op instanceof Delete d) {
            ZnodeTree.Znode node = tree.node(d.path());
            Integer current = node == null || d.version() == ZnodeTree.ANY_VERSION || ownedHere.test(d.path()) ? null
                    : versionOf(d.path(), node);
            ZkReply r = tree.delete(d.path(), d.version(), zxid, current);
            if (r.isOk()) {
                versions.remove(d.path());
            }
            return r;
        }
        if (op instanceof SetData s) {
            if (ownedHere.test(s.path())) {
                return tree.setData(s.path(), s.data(), s.version(), zxid, time);
            }
            ZkReply missing = missing(s.path());
            if (missing != null) {
                return missing;
            }
            ZnodeTree.Znode node = tree.node(s.path());
            int current = versionOf(s.path(), node);
            if (s.version() != ZnodeTree.ANY_VERSION && s.version() != current) {
                return ZkReply.error(ZkCode.BADVERSION).withZxid(zxid);
            }
            versions.put(s.path(), current + 1);
            return ZkReply.stat(ZnodeTree.setStat(node, current + 1, s.dataNotCopied().length, zxid, time)).withZxid(zxid);
        }
        Check c = (Check) op;
        ZkReply missing = missing(c.path());
        if (missing != null) {
            return missing;
        }
        int current = versionOf(c.path(), tree.node(c.path()));
        return (c.version() == ZnodeTree.ANY_VERSION || c.version() == current ? ZkReply.ok()
                : ZkReply.error(ZkCode.BADVERSION)).withZxid(zxid);
    }

    /** BADARGUMENTS or NONODE if {@code path} names no node, else null. */
    private ZkReply missing(String path) {
        if (!ZkPaths.isValid(path)) {
            return ZkReply.error(ZkCode.BADARGUMENTS).withZxid(zxid);
        }
        return tree.node(path) == null ? ZkReply.error(ZkCode.NONODE).withZxid(zxid) : null;
    }

    /** The version of existing node {@code node} at {@code path} by rule 3. */
    private int versionOf(String path, ZnodeTree.Znode node) {
        if (ownedHere.test(path)) {
            return node.version;
        }
        Integer v = versions.get(path);
        if (v == null) {
            v = remoteVersions.get(path);
            if (v == null) {
                throw new IllegalStateException("no version from the owner of " + path);
            }
            versions.put(path, v);
        }
        return v;
    }
}
