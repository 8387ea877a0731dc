package dev.parallax.core.testkit.smr;

import dev.parallax.core.CommandId;
import dev.parallax.core.check.KvOp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A tiny key-value state machine for the simulations, with its text command format:
 * {@code G key}, {@code P key value}, {@code A key suffix}. Gets answer the value or {@link #NONE}.
 *
 * <p>It also audits at-most-once execution on its own, independently of the replica's session
 * layer that is supposed to guarantee it: {@link #apply} counts the applications of each command
 * id, and a second application of one id throws. The counts are part of the state (they travel in
 * snapshots), so a replica restored from a snapshot still catches a re-application of a command the
 * snapshot already contains. Not thread-safe.
 */
public final class KvCommands {
    /** Reply of a get on a missing key, and of every write. */
    public static final String NONE = "\u0000";

    private final Map<String, String> data;
    private final Map<CommandId, Integer> applications;

    /** An empty state machine. */
    public KvCommands() {
        this(new TreeMap<>(), new HashMap<>());
    }

    /** A state machine holding copies of {@code data} and of the application counts. */
    public KvCommands(Map<String, String> data, Map<CommandId, Integer> applications) {
        this.data = new TreeMap<>(data);
        this.applications = new HashMap<>(applications);
    }

    /**
     * Applies command {@code id} and returns its output.
     *
     * @throws AssertionError if {@code id} was applied to this state before (at-most-once violated)
     */
    public String apply(CommandId id, ByteBuffer command) {
        int times = applications.merge(id, 1, Integer::sum);
        if (times > 1) {
            throw new AssertionError("at-most-once violated: command " + id + " applied " + times
                    + " times to one state machine");
        }
        return execute(command);
    }

    /**
     * Applies command {@code id} as {@link #apply} does, and returns its output (UTF-8) with an undo
     * that restores the key it wrote and forgets this application (speculative execution; undos run
     * last first).
     *
     * @throws AssertionError if {@code id} was applied to this state before (at-most-once violated)
     */
    public dev.parallax.core.SpeculativeStateMachine.Execution applyUndoably(CommandId id, ByteBuffer command) {
        String[] parts = parse(command);
        String key = parts.length > 1 ? parts[1] : null;
        boolean had = key != null && data.containsKey(key);
        String before = had ? data.get(key) : null;
        String out = apply(id, command);
        Runnable undo = () -> {
            if (key != null) {
                if (had) {
                    data.put(key, before);
                } else {
                    data.remove(key);
                }
            }
            if (applications.merge(id, -1, Integer::sum) == 0) {
                applications.remove(id);
            }
        };
        return new dev.parallax.core.SpeculativeStateMachine.Execution(
                ByteBuffer.wrap(out.getBytes(StandardCharsets.UTF_8)), undo);
    }

    /** The command text of {@code op}, UTF-8 encoded (what {@link #apply} executes). */
    public static byte[] encode(KvOp op) {
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

    /**
     * The answer a get would give now, read from this state without applying anything (no
     * application is counted), or {@code null} if {@code command} is not a get: a query, or the
     * local-read mutation's answer.
     */
    public String readLocally(ByteBuffer command) {
        String[] parts = parse(command);
        return "G".equals(parts[0]) ? data.getOrDefault(parts[1], NONE) : null;
    }

    private static String[] parse(ByteBuffer command) {
        byte[] b = new byte[command.remaining()];
        command.duplicate().get(b);
        return new String(b, StandardCharsets.UTF_8).split(" ", 3);
    }

    private String execute(ByteBuffer command) {
        String[] parts = parse(command);
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

    /** The data, live (not a copy), in key order. */
    public Map<String, String> data() {
        return data;
    }

    /** How many times each command id was applied (all 1 in a correct run). */
    public Map<CommandId, Integer> applications() {
        return applications;
    }
}
