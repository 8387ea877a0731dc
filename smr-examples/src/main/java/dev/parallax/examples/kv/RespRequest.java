package dev.parallax.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One decoded RESP request: the command name and its arguments as raw bytes. Produced by {@link
 * RespRequestDecoder} and consumed on the same event loop; the arrays are not copied and must not
 * be modified.
 */
final class RespRequest {
    private final byte[][] args;

    RespRequest(byte[]... args) {
        this.args = args;
    }

    int argc() {
        return args.length;
    }

    byte[] arg(int index) {
        return args[index];
    }

    /** Argument {@code index} as text (ISO-8859-1, so every byte maps to one char). */
    String text(int index) {
        return new String(args[index], StandardCharsets.ISO_8859_1);
    }

    /** All arguments, the command name first; not copied. */
    byte[][] args() {
        return args;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RespRequest r && Arrays.deepEquals(args, r.args);
    }

    @Override
    public int hashCode() {
        return Arrays.deepHashCode(args);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("RespRequest[");
        for (int i = 0; i < args.length; i++) {
            sb.append(i == 0 ? "" : " ").append(text(i));
        }
        return sb.append(']').toString();
    }
}
