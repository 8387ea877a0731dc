package dev.parallax.examples.kv;

/**
 * The operations of the key-value state machine, each with its one-byte code in the {@link
 * KvCommand} wire format and the argument counts it accepts.
 *
 * <p>Immutable and thread-safe.
 */
public enum KvOp {
    /** {@code GET key}: the value, or nil. */
    GET((byte) 1, 1, 1, 1),
    /** {@code SET key value}: stores the value; replies OK. */
    SET((byte) 2, 2, 2, 1),
    /** {@code SET key value NX}: stores the value only if the key is absent; replies OK or nil. */
    SET_IF_ABSENT((byte) 3, 2, 2, 1),
    /** {@code SET key value XX}: stores the value only if the key is present; replies OK or nil. */
    SET_IF_PRESENT((byte) 4, 2, 2, 1),
    /** {@code DEL key [key ...]}: removes the keys; replies how many existed. */
    DEL((byte) 5, 1, Integer.MAX_VALUE, 1),
    /** {@code EXISTS key [key ...]}: how many of the keys exist, a repeated key counted each time. */
    EXISTS((byte) 6, 1, Integer.MAX_VALUE, 1),
    /** {@code INCR key}: adds one to the decimal 64-bit integer value (absent counts as 0). */
    INCR((byte) 7, 1, 1, 1),
    /** {@code MGET key [key ...]}: the values in key order, nil for an absent key. */
    MGET((byte) 8, 1, Integer.MAX_VALUE, 1),
    /** {@code MSET key value [key value ...]}: stores every pair, later pairs winning; replies OK. */
    MSET((byte) 9, 2, Integer.MAX_VALUE, 2),
    /** {@code DBSIZE}: the number of keys; a global read (it reads the whole store). */
    DBSIZE((byte) 10, 0, 0, 1),
    /** {@code FLUSHALL}: removes every key; replies OK. A global write (it writes the whole store). */
    FLUSHALL((byte) 11, 0, 0, 1),
    /** {@code STRLEN key}: the length in bytes of the value, 0 for an absent key. */
    STRLEN((byte) 12, 1, 1, 1);

    private static final KvOp[] BY_CODE = new KvOp[16];

    static {
        for (KvOp op : values()) {
            BY_CODE[op.code] = op;
        }
    }

    private final byte code;
    private final int minArgs;
    private final int maxArgs;
    private final int argMultiple;

    KvOp(byte code, int minArgs, int maxArgs, int argMultiple) {
        this.code = code;
        this.minArgs = minArgs;
        this.maxArgs = maxArgs;
        this.argMultiple = argMultiple;
    }

    /**
     * Whether the op touches the whole store rather than the keys among its arguments (DBSIZE,
     * FLUSHALL): such an op depends on every command that writes, whatever its keys.
     */
    public boolean isGlobal() {
        return this == DBSIZE || this == FLUSHALL;
    }

    /** Whether the op only reads (GET, EXISTS, MGET, DBSIZE, STRLEN): a replica may answer it as a query. */
    public boolean isReadOnly() {
        return this == GET || this == EXISTS || this == MGET || this == DBSIZE || this == STRLEN;
    }

    /** The op code in the wire format. */
    public byte code() {
        return code;
    }

    /** Whether the op takes {@code count} arguments (MSET: a positive even number). */
    public boolean acceptsArgCount(int count) {
        return count >= minArgs && count <= maxArgs && count % argMultiple == 0;
    }

    /**
     * The op with this wire code.
     *
     * @throws IllegalArgumentException if no op has this code
     */
    public static KvOp fromCode(byte code) {
        KvOp op = code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
        if (op == null) {
            throw new IllegalArgumentException("malformed KV command: unknown op code " + code);
        }
        return op;
    }
}
