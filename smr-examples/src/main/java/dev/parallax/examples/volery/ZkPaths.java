package dev.parallax.examples.volery;

/**
 * ZooKeeper's path rules ({@code org.apache.zookeeper.common.PathUtils.validatePath}): a path is
 * absolute ("/" first), is "/" or has no trailing "/", has no empty segment ("//"), no "." or ".."
 * segment, no NUL and none of the characters ZooKeeper forbids (U+0001-U+001F, U+007F-U+009F,
 * U+D800-U+F8FF, U+FFF0-U+FFFF).
 *
 * <p>Stateless; safe from any thread; never throws on any string, null included.
 */
public final class ZkPaths {
    /** The root path. */
    public static final String ROOT = "/";

    private ZkPaths() {
    }

    /** Why {@code path} is not a valid znode path, or null if it is one. */
    public static String invalidReason(String path) {
        if (path == null) {
            return "path cannot be null";
        }
        if (path.isEmpty()) {
            return "path length must be > 0";
        }
        if (path.charAt(0) != '/') {
            return "path must start with / character";
        }
        if (path.length() == 1) {
            return null;
        }
        if (path.charAt(path.length() - 1) == '/') {
            return "path must not end with / character";
        }
        char last = '/';
        for (int i = 1; i < path.length(); last = path.charAt(i), i++) {
            char c = path.charAt(i);
            boolean segmentEnd = i + 1 == path.length() || path.charAt(i + 1) == '/';
            if (c == 0) {
                return "null character not allowed @" + i;
            } else if (c == '/' && last == '/') {
                return "empty node name specified @" + i;
            } else if (c == '.' && last == '.' && path.charAt(i - 2) == '/' && segmentEnd) {
                return "relative paths not allowed @" + i;
            } else if (c == '.' && last == '/' && segmentEnd) {
                return "relative paths not allowed @" + i;
            } else if (c <= '\u001f' || c >= '\u007f' && c <= '\u009f' || c >= '\ud800' && c <= '\uf8ff'
                    || c >= '\ufff0') {
                return "invalid character @" + i;
            }
        }
        return null;
    }

    /** Whether {@code path} is a valid znode path. */
    public static boolean isValid(String path) {
        return invalidReason(path) == null;
    }

    /** The parent of a valid path other than the root ("/" for a top-level node). */
    public static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash == 0 ? ROOT : path.substring(0, slash);
    }

    /** The last segment of a valid path other than the root. */
    public static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
