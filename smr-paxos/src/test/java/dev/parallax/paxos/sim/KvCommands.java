package dev.parallax.paxos.sim;

import dev.parallax.core.check.KvOp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * A tiny key-value state machine for the simulations, with its text command format:
 * {@code G key}, {@code P key value}, {@code A key suffix}. Gets answer the value or {@link #NONE}.
 * Not thread-safe.
 */
final class KvCommands {
    /** Reply of a get on a missing key, and of every write. */
    static final String NONE = "\u0000";

    private final Map<String, String> data;

    KvCommands() {
        this(new TreeMap<>());
    }

    KvCommands(Map<String, String> data) {
        this.data = new TreeMap<>(data);
    }

    static byte[] encode(KvOp op) {
        String text;
        if (op instanceof KvOp.Get g) {
            text = "G " + g.key();
        } else if (op instanceof KvOp.Put p) {
            text = "P " + p.key() + " " + p.value();
        } else if (op instanceof KvOp.Append a) {
            text = "A " + a.key() + " " + a.suffix();
        } else {
            text = "D " + op.key();
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

    String execute(ByteBuffer command) {
        byte[] b = new byte[command.remaining()];
        command.duplicate().get(b);
        String[] parts = new String(b, StandardCharsets.UTF_8).split(" ", 3);
        switch (parts[0]) {
            case "G":
                return data.getOrDefault(parts[1], NONE);
            case "P":
                data.put(parts[1], parts[2]);
                return NONE;
            case "A":
                data.merge(parts[1], parts[2], String::concat);
                return NONE;
            case "D":
                data.remove(parts[1]);
                return NONE;
            default:
                throw new IllegalArgumentException("unknown command " + parts[0]);
        }
    }

    Map<String, String> data() {
        return data;
    }
}
