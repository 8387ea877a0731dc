package dev.parallax.core.check;

import java.util.Objects;

/**
 * An operation on a string key-value map, the input type of {@link KvModel}: a per-key operation
 * on one key ({@link Get}, {@link Put}, {@link Delete}, {@link Append}) or a global operation on
 * the whole map ({@link DbSize}, {@link FlushAll}; the KV store's {@code DBSIZE} and
 * {@code FLUSHALL}). The output of {@link Get} is the value read, null meaning absent; the output
 * of {@link DbSize} is the number of keys present as a decimal string ({@code "3"}); the outputs
 * of the other operations carry nothing and are ignored. Immutable and therefore thread-safe.
 */
public sealed interface KvOp {

    /**
     * The key a per-key operation touches, never null for one; null for a global operation
     * ({@link #isGlobal()}), which touches every key.
     */
    String key();

    /**
     * Whether the operation reads or writes the whole map rather than one key ({@link DbSize},
     * {@link FlushAll}). A history containing one cannot be partitioned by key
     * ({@link KvModel#partition}). Non-blocking.
     */
    default boolean isGlobal() {
        return false;
    }

    /**
     * Reads {@code key}. Non-blocking.
     *
     * @throws NullPointerException if {@code key} is null
     */
    static KvOp get(String key) {
        return new Get(key);
    }

    /**
     * Sets {@code key} to {@code value}. Non-blocking.
     *
     * @throws NullPointerException if an argument is null
     */
    static KvOp put(String key, String value) {
        return new Put(key, value);
    }

    /**
     * Removes {@code key}. Non-blocking.
     *
     * @throws NullPointerException if {@code key} is null
     */
    static KvOp delete(String key) {
        return new Delete(key);
    }

    /**
     * Appends {@code suffix} to the value of {@code key}, treating an absent value as empty.
     * Non-blocking.
     *
     * @throws NullPointerException if an argument is null
     */
    static KvOp append(String key, String suffix) {
        return new Append(key, suffix);
    }

    /**
     * Counts the keys present (the KV store's {@code DBSIZE}); its output is the count as a
     * decimal string. A global operation. Non-blocking.
     */
    static KvOp dbSize() {
        return DbSize.INSTANCE;
    }

    /**
     * Removes every key (the KV store's {@code FLUSHALL}); its output is ignored. A global
     * operation. Non-blocking.
     */
    static KvOp flushAll() {
        return FlushAll.INSTANCE;
    }

    /** A read of {@code key}. */
    record Get(String key) implements KvOp {
        /**
         * Validates the key.
         *
         * @throws NullPointerException if {@code key} is null
         */
        public Get {
            Objects.requireNonNull(key, "key");
        }

        @Override
        public String toString() {
            return "get(" + key + ")";
        }
    }

    /** A blind write of {@code value} to {@code key}. */
    record Put(String key, String value) implements KvOp {
        /**
         * Validates the components.
         *
         * @throws NullPointerException if a component is null
         */
        public Put {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
        }

        @Override
        public String toString() {
            return "put(" + key + ", " + value + ")";
        }
    }

    /** A removal of {@code key}. */
    record Delete(String key) implements KvOp {
        /**
         * Validates the key.
         *
         * @throws NullPointerException if {@code key} is null
         */
        public Delete {
            Objects.requireNonNull(key, "key");
        }

        @Override
        public String toString() {
            return "delete(" + key + ")";
        }
    }

    /** An append of {@code suffix} to the value of {@code key}. */
    record Append(String key, String suffix) implements KvOp {
        /**
         * Validates the components.
         *
         * @throws NullPointerException if a component is null
         */
        public Append {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(suffix, "suffix");
        }

        @Override
        public String toString() {
            return "append(" + key + ", " + suffix + ")";
        }
    }

    /** A count of the keys present: a global read. */
    record DbSize() implements KvOp {
        private static final DbSize INSTANCE = new DbSize();

        /** Null: a global operation has no key. */
        @Override
        public String key() {
            return null;
        }

        @Override
        public boolean isGlobal() {
            return true;
        }

        @Override
        public String toString() {
            return "dbsize()";
        }
    }

    /** A removal of every key: a global write. */
    record FlushAll() implements KvOp {
        private static final FlushAll INSTANCE = new FlushAll();

        /** Null: a global operation has no key. */
        @Override
        public String key() {
            return null;
        }

        @Override
        public boolean isGlobal() {
            return true;
        }

        @Override
        public String toString() {
            return "flushall()";
        }
    }
}
