package dev.parallax.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A reply the front end answers by itself (PING, CONFIG, errors...), as opposed to a state
 * machine reply. Immutable; encoded by {@link RespEncoding}.
 */
sealed interface RespReply permits RespReply.Simple, RespReply.Error, RespReply.Int, RespReply.Bulk, RespReply.Array {
    RespReply OK = new Simple("OK");
    RespReply PONG = new Simple("PONG");
    RespReply NIL = new Bulk(null);
    RespReply EMPTY_ARRAY = new Array(List.of());

    /** {@code +text}: the text has no CR or LF. */
    record Simple(String text) implements RespReply {
    }

    /** {@code -code message}: CR and LF are sent as spaces. */
    record Error(String message) implements RespReply {
    }

    /** {@code :value}. */
    record Int(long value) implements RespReply {
    }

    /** {@code $n bytes}, or the nil bulk for null; the array is not copied. */
    record Bulk(byte[] value) implements RespReply {
        static Bulk of(String text) {
            return new Bulk(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** {@code *n} followed by the elements. */
    record Array(List<RespReply> elements) implements RespReply {
    }
}
