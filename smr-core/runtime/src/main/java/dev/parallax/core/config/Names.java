package dev.parallax.core.config;

import java.util.regex.Pattern;

/**
 * The one rule for the names a replica gives its protocol instances, replica-port channels and
 * durable logs: they become metric tags, wire announcements and directory names, so they are 1..64
 * characters of {@code [a-z0-9.-]} and never {@code .} or {@code ..}. Stateless and thread-safe.
 */
public final class Names {
    private static final Pattern NAME = Pattern.compile("[a-z0-9.-]{1,64}");

    private Names() {
    }

    /** Whether {@code name} follows the rule. */
    public static boolean valid(String name) {
        return name != null && NAME.matcher(name).matches() && !name.equals(".") && !name.equals("..");
    }

    /**
     * @return {@code name}
     * @throws IllegalArgumentException naming {@code what} if {@code name} does not follow the rule
     */
    public static String check(String what, String name) {
        if (!valid(name)) {
            throw new IllegalArgumentException(what + " name must be 1..64 characters of [a-z0-9.-], got '" + name + "'");
        }
        return name;
    }
}
