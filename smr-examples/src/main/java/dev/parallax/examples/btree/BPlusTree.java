package dev.parallax.examples.btree;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.ObjLongConsumer;

/**
 * An ordered map from {@code long} keys to byte-array values stored as a B+-tree: inner nodes hold
 * separator keys and children, leaves hold the entries and are chained in key order for range
 * scans. A node holds at most {@code order - 1} keys; an insert that overflows a node splits it and
 * pushes a separator up (a full root grows the tree by a level); a delete that leaves a non-root
 * node with fewer than {@code (order - 1) / 2} keys borrows one from a sibling that can spare it,
 * or else merges with a sibling and pulls the separator down (an empty inner root shrinks the tree).
 *
 * <p>Values are copied on the way in and out, so callers never share arrays with the tree.
 *
 * <p>Not thread-safe for writes: any number of threads may call the read methods ({@link #get},
 * {@link #containsKey}, {@link #range}, {@link #size}, {@link #forEach}) at once while no thread
 * writes; writes need exclusive access.
 */
public final class BPlusTree {
    private final int maxKeys;
    private final int minKeys;
    private Node root;
    private int size;

    /**
     * @param order the maximum number of children of an inner node, {@code >= 4}
     * @throws IllegalArgumentException if {@code order < 4}
     */
    public BPlusTree(int order) {
        if (order < 4) {
            throw new IllegalArgumentException("order must be >= 4, got " + order);
        }
        this.maxKeys = order - 1;
        this.minKeys = maxKeys / 2;
        this.root = new Leaf(maxKeys);
    }

    /** The number of entries. */
    public int size() {
        return size;
    }

    /** The height of the tree: 1 for a single leaf. */
    public int height() {
        int h = 1;
        for (Node n = root; n instanceof Inner in; n = in.children[0]) {
            h++;
        }
        return h;
    }

    /** The value of {@code key}, a fresh copy, or {@code null} if absent. */
    public byte[] get(long key) {
        Leaf leaf = findLeaf(key);
        int i = lowerBound(leaf.keys, leaf.n, key);
        return i < leaf.n && leaf.keys[i] == key ? leaf.values[i].clone() : null;
    }

    /** Whether {@code key} has a value. */
    public boolean containsKey(long key) {
        Leaf leaf = findLeaf(key);
        int i = lowerBound(leaf.keys, leaf.n, key);
        return i < leaf.n && leaf.keys[i] == key;
    }

    /** Adds {@code key} with {@code value} unless present. @return whether it was added */
    public boolean insert(long key, byte[] value) {
        return write(key, value, Mode.INSERT);
    }

    /** Replaces the value of {@code key} if present. @return whether it was present */
    public boolean update(long key, byte[] value) {
        Leaf leaf = findLeaf(key);
        int i = lowerBound(leaf.keys, leaf.n, key);
        if (i < leaf.n && leaf.keys[i] == key) {
            leaf.values[i] = value.clone();
            return true;
        }
        return false;
    }

    /** Sets the value of {@code key}, adding it if absent. @return whether it was added */
    public boolean put(long key, byte[] value) {
        return write(key, value, Mode.PUT);
    }

    /** Removes {@code key}. @return whether it was present */
    public boolean delete(long key) {
        boolean removed = delete(root, key);
        if (removed) {
            size--;
            if (root instanceof Inner in && in.n == 0) {
                root = in.children[0];
            }
        }
        return removed;
    }

    /**
     * The entries with {@code from <= key < to}, in key order, at most {@code limit} of them.
     *
     * @throws IllegalArgumentException if {@code limit < 0}
     */
    public List<Map.Entry<Long, byte[]>> range(long from, long to, int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0, got " + limit);
        }
        List<Map.Entry<Long, byte[]>> out = new ArrayList<>();
        if (from >= to) {
            return out;
        }
        Leaf leaf = findLeaf(from);
        int i = lowerBound(leaf.keys, leaf.n, from);
        while (leaf != null && out.size() < limit) {
            if (i >= leaf.n) {
                leaf = leaf.next;
                i = 0;
                continue;
            }
            if (leaf.keys[i] >= to) {
                break;
            }
            out.add(Map.entry(leaf.keys[i], leaf.values[i].clone()));
            i++;
        }
        return out;
    }

    /** Visits every entry in key order; the value arrays are the tree's own and must not be changed. */
    public void forEach(ObjLongConsumer<byte[]> action) {
        Node n = root;
        while (n instanceof Inner in) {
            n = in.children[0];
        }
        for (Leaf leaf = (Leaf) n; leaf != null; leaf = leaf.next) {
            for (int i = 0; i < leaf.n; i++) {
                action.accept(leaf.values[i], leaf.keys[i]);
            }
        }
    }

    /** Removes every entry. */
    public void clear() {
        root = new Leaf(maxKeys);
        size = 0;
    }

    /**
     * Checks the tree's structural invariants: sorted keys, node fill within bounds, separators that
     * route every key to its subtree, all leaves at the same depth, a leaf chain in key order and a
     * correct size. For tests.
     *
     * @throws IllegalStateException describing the first broken invariant
     */
    public void checkInvariants() {
        int[] leafDepth = {-1};
        List<Leaf> leaves = new ArrayList<>();
        int counted = check(root, Long.MIN_VALUE, false, Long.MAX_VALUE, false, 0, leafDepth, leaves, true);
        if (counted != size) {
            throw new IllegalStateException("size " + size + " but " + counted + " entries");
        }
        for (int i = 0; i < leaves.size(); i++) {
            Leaf expectedNext = i + 1 < leaves.size() ? leaves.get(i + 1) : null;
            if (leaves.get(i).next != expectedNext) {
                throw new IllegalStateException("leaf chain broken after leaf " + i);
            }
        }
    }

    private int check(Node node, long lo, boolean hasLo, long hi, boolean hasHi, int depth, int[] leafDepth,
                      List<Leaf> leaves, boolean isRoot) {
        if (node.n > maxKeys || (!isRoot && node.n < minKeys)) {
            throw new IllegalStateException("node with " + node.n + " keys outside [" + minKeys + ", " + maxKeys + "]");
        }
        for (int i = 0; i < node.n; i++) {
            long k = node.keys[i];
            if (i > 0 && node.keys[i - 1] >= k) {
                throw new IllegalStateException("keys out of order: " + node.keys[i - 1] + ", " + k);
            }
            if ((hasLo && k < lo) || (hasHi && k >= hi)) {
                throw new IllegalStateException("key " + k + " outside its subtree's range [" + lo + ", " + hi + ")");
            }
        }
        if (node instanceof Leaf leaf) {
            if (leafDepth[0] < 0) {
                leafDepth[0] = depth;
            } else if (leafDepth[0] != depth) {
                throw new IllegalStateException("leaves at depths " + leafDepth[0] + " and " + depth);
            }
            leaves.add(leaf);
            return leaf.n;
        }
        Inner in = (Inner) node;
        if (isRoot && in.n == 0) {
            throw new IllegalStateException("inner root without keys");
        }
        int total = 0;
        for (int i = 0; i <= in.n; i++) {
            long cLo = i == 0 ? lo : in.keys[i - 1];
            boolean cHasLo = i == 0 ? hasLo : true;
            long cHi = i == in.n ? hi : in.keys[i];
            boolean cHasHi = i == in.n ? hasHi : true;
            total += check(in.children[i], cLo, cHasLo, cHi, cHasHi, depth + 1, leafDepth, leaves, false);
        }
        return total;
    }

    private enum Mode { INSERT, PUT }

    private boolean write(long key, byte[] value, Mode mode) {
        int before = size;
        Split split = insert(root, key, value.clone(), mode);
        if (split != null) {
            Inner r = new Inner(maxKeys);
            r.keys[0] = split.key;
            r.children[0] = root;
            r.children[1] = split.right;
            r.n = 1;
            root = r;
        }
        return size > before;
    }

    private Split insert(Node node, long key, byte[] value, Mode mode) {
        if (node instanceof Leaf leaf) {
            int i = lowerBound(leaf.keys, leaf.n, key);
            if (i < leaf.n && leaf.keys[i] == key) {
                if (mode == Mode.PUT) {
                    leaf.values[i] = value;
                }
                return null;
            }
            System.arraycopy(leaf.keys, i, leaf.keys, i + 1, leaf.n - i);
            System.arraycopy(leaf.values, i, leaf.values, i + 1, leaf.n - i);
            leaf.keys[i] = key;
            leaf.values[i] = value;
            leaf.n++;
            size++;
            return leaf.n > maxKeys ? splitLeaf(leaf) : null;
        }
        Inner in = (Inner) node;
        int ci = upperBound(in.keys, in.n, key);
        Split s = insert(in.children[ci], key, value, mode);
        if (s == null) {
            return null;
        }
        System.arraycopy(in.keys, ci, in.keys, ci + 1, in.n - ci);
        System.arraycopy(in.children, ci + 1, in.children, ci + 2, in.n - ci);
        in.keys[ci] = s.key;
        in.children[ci + 1] = s.right;
        in.n++;
        return in.n > maxKeys ? splitInner(in) : null;
    }

    private Split splitLeaf(Leaf leaf) {
        int mid = leaf.n / 2;
        Leaf right = new Leaf(maxKeys);
        right.n = leaf.n - mid;
        System.arraycopy(leaf.keys, mid, right.keys, 0, right.n);
        System.arraycopy(leaf.values, mid, right.values, 0, right.n);
        Arrays.fill(leaf.values, mid, leaf.n, null);
        leaf.n = mid;
        right.next = leaf.next;
        leaf.next = right;
        return new Split(right.keys[0], right);
    }

    private Split splitInner(Inner in) {
        int mid = in.n / 2;
        long sep = in.keys[mid];
        Inner right = new Inner(maxKeys);
        right.n = in.n - mid - 1;
        System.arraycopy(in.keys, mid + 1, right.keys, 0, right.n);
        System.arraycopy(in.children, mid + 1, right.children, 0, right.n + 1);
        Arrays.fill(in.children, mid + 1, in.n + 1, null);
        in.n = mid;
        return new Split(sep, right);
    }

    private boolean delete(Node node, long key) {
        if (node instanceof Leaf leaf) {
            int i = lowerBound(leaf.keys, leaf.n, key);
            if (i >= leaf.n || leaf.keys[i] != key) {
                return false;
            }
            System.arraycopy(leaf.keys, i + 1, leaf.keys, i, leaf.n - i - 1);
            System.arraycopy(leaf.values, i + 1, leaf.values, i, leaf.n - i - 1);
            leaf.n--;
            leaf.values[leaf.n] = null;
            return true;
        }
        Inner in = (Inner) node;
        int ci = upperBound(in.keys, in.n, key);
        boolean removed = delete(in.children[ci], key);
        if (removed && in.children[ci].n < minKeys) {
            rebalance(in, ci);
        }
        return removed;
    }

    /** Restores the fill of {@code parent.children[ci]}: borrow from a sibling, else merge. */
    private void rebalance(Inner parent, int ci) {
        Node child = parent.children[ci];
        Node left = ci > 0 ? parent.children[ci - 1] : null;
        Node right = ci < parent.n ? parent.children[ci + 1] : null;
        if (left != null && left.n > minKeys) {
            borrowFromLeft(parent, ci, left, child);
        } else if (right != null && right.n > minKeys) {
            borrowFromRight(parent, ci, child, right);
        } else if (left != null) {
            merge(parent, ci - 1, left, child);
        } else {
            merge(parent, ci, child, right);
        }
    }

    private void borrowFromLeft(Inner parent, int ci, Node left, Node child) {
        System.arraycopy(child.keys, 0, child.keys, 1, child.n);
        if (child instanceof Leaf c) {
            Leaf l = (Leaf) left;
            System.arraycopy(c.values, 0, c.values, 1, c.n);
            c.keys[0] = l.keys[l.n - 1];
            c.values[0] = l.values[l.n - 1];
            l.values[l.n - 1] = null;
            parent.keys[ci - 1] = c.keys[0];
        } else {
            Inner c = (Inner) child;
            Inner l = (Inner) left;
            System.arraycopy(c.children, 0, c.children, 1, c.n + 1);
            c.keys[0] = parent.keys[ci - 1];
            c.children[0] = l.children[l.n];
            l.children[l.n] = null;
            parent.keys[ci - 1] = l.keys[l.n - 1];
        }
        left.n--;
        child.n++;
    }

    private void borrowFromRight(Inner parent, int ci, Node child, Node right) {
        if (child instanceof Leaf c) {
            Leaf r = (Leaf) right;
            c.keys[c.n] = r.keys[0];
            c.values[c.n] = r.values[0];
            System.arraycopy(r.keys, 1, r.keys, 0, r.n - 1);
            System.arraycopy(r.values, 1, r.values, 0, r.n - 1);
            r.values[r.n - 1] = null;
            parent.keys[ci] = r.keys[0];
        } else {
            Inner c = (Inner) child;
            Inner r = (Inner) right;
            c.keys[c.n] = parent.keys[ci];
            c.children[c.n + 1] = r.children[0];
            parent.keys[ci] = r.keys[0];
            System.arraycopy(r.keys, 1, r.keys, 0, r.n - 1);
            System.arraycopy(r.children, 1, r.children, 0, r.n);
            r.children[r.n] = null;
        }
        child.n++;
        right.n--;
    }

    /** Merges {@code right} into {@code left}, which are {@code parent}'s children sep and sep + 1. */
    private void merge(Inner parent, int sep, Node left, Node right) {
        if (left instanceof Leaf l) {
            Leaf r = (Leaf) right;
            System.arraycopy(r.keys, 0, l.keys, l.n, r.n);
            System.arraycopy(r.values, 0, l.values, l.n, r.n);
            l.n += r.n;
            l.next = r.next;
        } else {
            Inner l = (Inner) left;
            Inner r = (Inner) right;
            l.keys[l.n] = parent.keys[sep];
            System.arraycopy(r.keys, 0, l.keys, l.n + 1, r.n);
            System.arraycopy(r.children, 0, l.children, l.n + 1, r.n + 1);
            l.n += r.n + 1;
        }
        System.arraycopy(parent.keys, sep + 1, parent.keys, sep, parent.n - sep - 1);
        System.arraycopy(parent.children, sep + 2, parent.children, sep + 1, parent.n - sep - 1);
        parent.children[parent.n] = null;
        parent.n--;
    }

    private Leaf findLeaf(long key) {
        Node n = root;
        while (n instanceof Inner in) {
            n = in.children[upperBound(in.keys, in.n, key)];
        }
        return (Leaf) n;
    }

    /** The first index whose key is {@code >= key}. */
    private static int lowerBound(long[] keys, int n, long key) {
        int lo = 0;
        int hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (keys[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The first index whose key is {@code > key}: the child to descend into. */
    private static int upperBound(long[] keys, int n, long key) {
        int lo = 0;
        int hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (keys[mid] <= key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private record Split(long key, Node right) {
    }

    private abstract static class Node {
        final long[] keys;
        int n;

        Node(int maxKeys) {
            this.keys = new long[maxKeys + 1];
        }
    }

    private static final class Leaf extends Node {
        final byte[][] values;
        Leaf next;

        Leaf(int maxKeys) {
            super(maxKeys);
            this.values = new byte[maxKeys + 1][];
        }
    }

    private static final class Inner extends Node {
        final Node[] children;

        Inner(int maxKeys) {
            super(maxKeys);
            this.children = new Node[maxKeys + 2];
        }
    }
}
