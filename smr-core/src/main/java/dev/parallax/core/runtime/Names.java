package dev.parallax.core.runtime;

import java.util.regex.Pattern;

/** Checks channel and log names (they become metric tags and directory names). Stateless. */
final class Names {
    private static final Pattern NAME = Pattern.compile("[a-z0-9.-]{1,64}");

    private Names() {
    }

    /** @throws IllegalArgumentException naming {@code what} if {@code name} is not 1..64 of [a-z0-9.-] */
    static String check(String what, String name) {
        if (name == null || !NAME.matcher(name).matches() || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException(what + " name must be 1..64 characters of [a-z0-9.-], got '" + name + "'");
        }
        return name;
    }
}
