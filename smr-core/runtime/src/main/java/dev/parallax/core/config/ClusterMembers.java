package dev.parallax.core.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The fixed set of replicas of a cluster, with ids {@code 0..n-1}.
 *
 * <p>Immutable and thread-safe. Parsed from the form {@code 0=host:port,1=host:port,...}; IPv6
 * literals go in brackets ({@code 2=[::1]:7002}). Ids must be exactly {@code 0..n-1} (the leader of
 * view {@code v} is replica {@code v mod n}, as in JPaxos).
 */
public final class ClusterMembers {
    private final Member[] members;

    private ClusterMembers(Member[] byId) {
        this.members = byId;
    }

    /**
     * Builds a cluster from members given in any order.
     *
     * @throws IllegalArgumentException if the list is empty, an id repeats, ids are not exactly
     *                                  {@code 0..n-1}, or two members share an address
     */
    public static ClusterMembers of(List<Member> members) {
        if (members.isEmpty()) {
            throw new IllegalArgumentException("a cluster needs at least one member");
        }
        Member[] byId = new Member[members.size()];
        for (Member m : members) {
            if (m.id() >= byId.length) {
                throw new IllegalArgumentException("member ids must be 0.." + (byId.length - 1)
                        + " for " + byId.length + " members, got id " + m.id());
            }
            if (byId[m.id()] != null) {
                throw new IllegalArgumentException("member id " + m.id() + " appears twice");
            }
            byId[m.id()] = m;
        }
        for (int i = 0; i < byId.length; i++) {
            for (int j = i + 1; j < byId.length; j++) {
                if (byId[i].host().equals(byId[j].host()) && byId[i].port() == byId[j].port()) {
                    throw new IllegalArgumentException("members " + i + " and " + j + " share the address "
                            + byId[i].host() + ":" + byId[i].port());
                }
            }
        }
        return new ClusterMembers(byId);
    }

    /** Same as {@link #of(List)}. */
    public static ClusterMembers of(Member... members) {
        return of(Arrays.asList(members));
    }

    /**
     * Parses {@code 0=host:port,1=host:port,...}. Whitespace around entries is ignored.
     *
     * @throws IllegalArgumentException naming the faulty entry and what is wrong with it
     */
    public static ClusterMembers parse(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("cluster spec is empty; expected 0=host:port,1=host:port,...");
        }
        List<Member> list = new ArrayList<>();
        String[] entries = spec.split(",", -1);
        for (int i = 0; i < entries.length; i++) {
            list.add(parseEntry(entries[i].trim(), i + 1));
        }
        return of(list);
    }

    /**
     * Parses one address {@code host:port} ({@code [ipv6]:port}) as replica {@code id}'s entry: the
     * address a joining replica listens on.
     *
     * @throws IllegalArgumentException naming the address and what is wrong with it
     */
    public static Member address(int id, String address) {
        if (address == null || address.isBlank()) {
            throw new IllegalArgumentException("address is empty; expected host:port");
        }
        return parseEntry(id + "=" + address.trim(), "address '" + address.trim() + "'");
    }

    private static Member parseEntry(String entry, int position) {
        return parseEntry(entry, "cluster spec entry " + position + " '" + entry + "'");
    }

    private static Member parseEntry(String entry, String where) {
        int eq = entry.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException(where + ": expected id=host:port");
        }
        int id = parseInt(entry.substring(0, eq).trim(), where + ": id");
        String address = entry.substring(eq + 1).trim();
        String host;
        String portText;
        if (address.startsWith("[")) {
            int close = address.indexOf(']');
            if (close < 0 || close + 1 >= address.length() || address.charAt(close + 1) != ':') {
                throw new IllegalArgumentException(where + ": expected [ipv6]:port");
            }
            host = address.substring(1, close);
            portText = address.substring(close + 2);
        } else {
            int colon = address.lastIndexOf(':');
            if (colon <= 0 || address.indexOf(':') != colon) {
                throw new IllegalArgumentException(where + ": expected host:port (IPv6 in brackets)");
            }
            host = address.substring(0, colon);
            portText = address.substring(colon + 1);
        }
        int port = parseInt(portText, where + ": port");
        try {
            return new Member(id, host, port);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
    }

    private static int parseInt(String text, String what) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " is not a number: '" + text + "'", e);
        }
    }

    /** Number of replicas, n. */
    public int size() {
        return members.length;
    }

    /** The largest number of crashed replicas the cluster tolerates: {@code f = (n-1)/2}. */
    public int maxFailures() {
        return (members.length - 1) / 2;
    }

    /** The size of a majority quorum: {@code floor(n/2)+1}. */
    public int quorum() {
        return members.length / 2 + 1;
    }

    /** @throws IllegalArgumentException if no member has that id */
    public Member member(int id) {
        if (id < 0 || id >= members.length) {
            throw new IllegalArgumentException("no member " + id + " in a cluster of " + members.length);
        }
        return members[id];
    }

    /** Members in id order. */
    public List<Member> members() {
        return Collections.unmodifiableList(Arrays.asList(members));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClusterMembers c && Arrays.equals(members, c.members);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(members);
    }

    /** The {@link #parse} form, so that {@code parse(c.toString()).equals(c)}. */
    @Override
    public String toString() {
        return Arrays.stream(members).map(Member::toString).collect(Collectors.joining(","));
    }
}
