package dev.parallax.examples.volery;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The checks every {@link VoleryCommand} constructor makes, in one place: a path and data within
 * the encoding's bounds ({@link VoleryCommand#MAX_PATH_BYTES}, {@link VoleryCommand#MAX_DATA_BYTES}),
 * so that every command encodes to bytes {@link VoleryCodec} decodes; and how a command carrying
 * data prints. Stateless; safe from any thread; never blocks.
 */
final class CommandArguments {
    private CommandArguments() {
    }

    /**
     * @throws NullPointerException     if {@code path} is null
     * @throws IllegalArgumentException if the path exceeds the encoding's bounds
     */
    static void checkPath(String path) {
        Objects.requireNonNull(path, "path");
        checkBounds(path, null);
    }

    /**
     * The arguments of a watch registration ({@link AddWatch}, {@link RemoveWatches}).
     *
     * @throws NullPointerException     if the path or watcher is null
     * @throws IllegalArgumentException if the path exceeds the encoding's bounds
     */
    static void checkRegistration(String path, Watcher watcher) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(watcher, "watcher");
        checkBounds(path, null);
    }

    /**
     * The record's own copy of {@code data} ({@link Create}, {@link SetData}), once the path and
     * data are checked.
     *
     * @throws NullPointerException     if {@code path} or {@code data} is null
     * @throws IllegalArgumentException if the path or data exceed the encoding's bounds
     */
    static byte[] checkedCopy(String path, byte[] data) {
        Objects.requireNonNull(path, "path");
        byte[] copy = data.clone();
        checkBounds(path, copy);
        return copy;
    }

    /** {@code name[path, nB, detail, t=time]}, without the time when it is 0: how create and setData print. */
    static String describe(String name, String path, byte[] data, Object detail, long time) {
        return name + "[" + path + ", " + data.length + "B, " + detail + (time == 0 ? "" : ", t=" + time) + "]";
    }

    /** @throws IllegalArgumentException if the path or data (null: none) exceed the encoding's bounds */
    private static void checkBounds(String path, byte[] data) {
        int pathBytes = path.getBytes(StandardCharsets.UTF_8).length;
        if (pathBytes > VoleryCommand.MAX_PATH_BYTES) {
            throw new IllegalArgumentException("path of " + pathBytes + " bytes exceeds " + VoleryCommand.MAX_PATH_BYTES);
        }
        if (data != null && data.length > VoleryCommand.MAX_DATA_BYTES) {
            throw new IllegalArgumentException("data of " + data.length + " bytes exceeds " + VoleryCommand.MAX_DATA_BYTES);
        }
    }
}
