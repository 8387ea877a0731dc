package dev.parallax.examples.kv;

import java.util.HashMap;
import java.util.Map;

/**
 * The key-value store's entries: a hash map that hands out a frozen view of itself in O(1), for a
 * snapshot written on another thread while commands go on changing the store (copy-on-write by
 * overlay).
 *
 * <p><b>How.</b> {@link #freeze} makes the current table (the base) read-only and gives it to the
 * view; later changes go to an overlay table (a removed key maps to a tombstone) and reads look in
 * the overlay first. Once the view is {@link Frozen#release released}, the next change folds the
 * overlay into the base, in O(changes since the freeze). Memory: the overlay's entries, nothing
 * copied. A freeze while the previous view is still open copies the live entries into a new base
 * (O(n)), leaving the old base to the old view.
 *
 * <p><b>Threads.</b> One thread changes the map (the executing thread; changes include
 * {@link #freeze} and {@link #replaceAll}). Readers ({@link #get}, {@link #size}) may run
 * concurrently with each other but not with a change, as for a {@link HashMap}; reads never fold.
 * A {@link Frozen} view is read by any one thread (the snapshot writer) and never changes until it
 * is released; its release, from that thread, publishes the end of its reads to the next fold.
 */
final class FreezableMap {
    private static final byte[] REMOVED = new byte[0];

    private HashMap<ByteKey, byte[]> base = new HashMap<>();
    /** Changes since the view was frozen; null while no view is out. */
    private HashMap<ByteKey, byte[]> overlay;
    /** The view whose table is {@link #base}, while {@link #overlay} is in use. */
    private Frozen view;
    private int size;

    /** The entries of a map as they were when frozen. */
    static final class Frozen {
        private final Map<ByteKey, byte[]> entries;
        private volatile boolean released;

        private Frozen(Map<ByteKey, byte[]> entries) {
            this.entries = entries;
        }

        /** The frozen entries; read-only, valid until {@link #release}. */
        Map<ByteKey, byte[]> entries() {
            return entries;
        }

        /** The reader is done with {@link #entries}; the map may change that table again. Idempotent. */
        void release() {
            released = true;
        }
    }

    /** The value under {@code key}, or null. */
    byte[] get(ByteKey key) {
        if (overlay != null) {
            byte[] v = overlay.get(key);
            if (v != null) {
                return v == REMOVED ? null : v;
            }
        }
        return base.get(key);
    }

    /** Stores {@code value} (never null) under {@code key}; returns the previous value, or null. */
    byte[] put(ByteKey key, byte[] value) {
        fold();
        byte[] old = get(key);
        (overlay != null ? overlay : base).put(key, value);
        if (old == null) {
            size++;
        }
        return old;
    }

    /** Removes {@code key}; returns its value, or null if it had none. */
    byte[] remove(ByteKey key) {
        fold();
        byte[] old = get(key);
        if (old != null) {
            if (overlay != null) {
                overlay.put(key, REMOVED);
            } else {
                base.remove(key);
            }
            size--;
        }
        return old;
    }

    /** The number of keys. */
    int size() {
        return size;
    }

    /**
     * A view of the current entries that later changes do not affect, in O(1) (O(n) if the
     * previous view is still open). The caller must {@link Frozen#release} it.
     */
    Frozen freeze() {
        fold();
        if (overlay != null) {
            base = merged(); // the previous view keeps the old table
        }
        overlay = new HashMap<>();
        view = new Frozen(base);
        return view;
    }

    /** The current entries as one table: the live one if no view is out, else a merged copy. */
    Map<ByteKey, byte[]> current() {
        return overlay == null ? base : merged();
    }

    private HashMap<ByteKey, byte[]> merged() {
        HashMap<ByteKey, byte[]> merged = new HashMap<>(base);
        applyOverlay(merged);
        return merged;
    }

    /** Replaces every entry with {@code entries} (taken over, not copied); an open view keeps its own. */
    void replaceAll(HashMap<ByteKey, byte[]> entries) {
        base = entries;
        overlay = null;
        view = null;
        size = entries.size();
    }

    /** Once the view is released, the base is the map's own again: fold the overlay into it. */
    private void fold() {
        if (overlay != null && view.released) {
            applyOverlay(base);
            overlay = null;
            view = null;
        }
    }

    private void applyOverlay(HashMap<ByteKey, byte[]> target) {
        for (Map.Entry<ByteKey, byte[]> e : overlay.entrySet()) {
            if (e.getValue() == REMOVED) {
                target.remove(e.getKey());
            } else {
                target.put(e.getKey(), e.getValue());
            }
        }
    }
}
