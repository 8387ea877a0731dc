package dev.parallax.core.check;

import java.util.Objects;

/**
 * An operation on one key of a string key-value map, the input type of {@link KvModel}. The
 * output of {@link Get} is the value read, null meaning absent; the outputs of the other
 * operations carry nothing and are ignored. Immutable and therefore thread-safe.
 */
public sealed interface KvOp {

    /** The key the operation touches. Never null. */
    String key();

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
}
