package dev.parallax.examples.cli;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.Member;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parsing and checking of the {@code parallax admin} arguments, shared by the CLI and the
 * replica's admin routes: {@code ID=HOST:PORT}, {@code HOST:PORT} and the replica ids a membership
 * line names. Stateless; thread-safe.
 */
final class AdminArguments {
    private static final Pattern LIST = Pattern.compile("\\[([^\\]]*)\\]");

    private AdminArguments() {
    }

    /**
     * {@code spec} as a member: {@code 3=10.0.0.4:7003} (IPv6 in brackets).
     *
     * @throws IllegalArgumentException naming the argument and the expected form
     */
    static Member idAddress(String spec) {
        int eq = spec.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("malformed '" + spec + "': expected ID=HOST:PORT, e.g. 3=10.0.0.4:7003");
        }
        int id = id(spec.substring(0, eq).strip());
        Member m = member(spec.substring(eq + 1).strip(), spec);
        return new Member(id, m.host(), m.port());
    }

    /**
     * {@code text} checked as {@code host:port} and returned as such.
     *
     * @throws IllegalArgumentException naming the argument and the expected form
     */
    static String hostPort(String text) {
        Member m = member(text.strip(), text);
        return m.host().contains(":") ? "[" + m.host() + "]:" + m.port() : m.host() + ":" + m.port();
    }

    /**
     * {@code text} as a replica id.
     *
     * @throws IllegalArgumentException if it is not a number >= 0
     */
    static int id(String text) {
        try {
            int id = Integer.parseInt(text.strip());
            if (id >= 0) {
                return id;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("'" + text + "' is not a replica id (a number >= 0)");
    }

    private static Member member(String address, String argument) {
        try {
            return ClusterMembers.parse("0=" + address).member(0);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed address in '" + argument + "': expected HOST:PORT with a port "
                    + "1..65535 (IPv6 in brackets)");
        }
    }

    /** The ids in the bracketed lists of a membership line ({@code voters=[0,1,2] learners=[3]}). */
    static Set<Integer> ids(String membersLine) {
        Set<Integer> ids = new TreeSet<>();
        Matcher m = LIST.matcher(membersLine);
        while (m.find()) {
            for (String part : m.group(1).split(",")) {
                if (!part.isBlank()) {
                    try {
                        ids.add(Integer.parseInt(part.strip()));
                    } catch (NumberFormatException e) {
                        // not an id list
                    }
                }
            }
        }
        return ids;
    }
}
