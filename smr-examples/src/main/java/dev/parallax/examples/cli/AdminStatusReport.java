package dev.parallax.examples.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The table {@code parallax admin status} prints from every replica's {@code /admin/status}
 * ({@link AdminRoutes}): one row per replica and ordered stream, with its partition (with
 * {@code execution=s-smr}), role, view or round, the leader it believes, its last decided instance
 * of the stream, its last executed position, its lag and its membership.
 *
 * <p>Lag: with one Paxos stream (Multi-Paxos, S-Paxos: roles leader and follower) the executed
 * positions are the stream's instances, so lag is the last instance decided at the stream's leader
 * (the highest reported if none claims it) minus this replica's last executed one. Otherwise it is
 * the executed position of the most advanced reachable replica of the same partition minus this
 * one's, marked {@code *}: a Ring Paxos stream (U-Ring, M-Ring) also decides the idle instances it
 * skips, which deliver nothing, and several streams merged into one order (Multi-Ring Paxos, the
 * reference multicast) number their deliveries apart from any stream's instances. An unreachable replica has one row, and a line below the table saying
 * why. Stateless; thread-safe.
 */
final class AdminStatusReport {
    private static final String STREAM = "stream.";

    private AdminStatusReport() {
    }

    /** One replica's answer: its status pairs, or null and why it could not be read. */
    record Answer(int id, int partition, Map<String, String> status, String error) {
    }

    /** The table's lines, a footnote for lag against the partition and for an ordering without membership changes. */
    static List<String> lines(List<Answer> answers, boolean partitioned) {
        Map<String, Long> streamLeader = new LinkedHashMap<>();
        java.util.Set<String> paxosStreams = new java.util.HashSet<>();
        Map<String, Long> streamMax = new LinkedHashMap<>();
        Map<Integer, Long> partitionMax = new LinkedHashMap<>();
        for (Answer a : answers) {
            if (a.status() == null) {
                continue;
            }
            partitionMax.merge(a.partition(), number(a.status(), "executed"), Math::max);
            for (String s : streams(a.status())) {
                long decided = number(a.status(), STREAM + s + ".decided");
                streamMax.merge(s, decided, Math::max);
                String role = a.status().getOrDefault(STREAM + s + ".role", "");
                if (role.equals("leader") || role.equals("coordinator")) {
                    streamLeader.merge(s, decided, Math::max);
                }
                if (role.equals("leader") || role.equals("follower")) {
                    paxosStreams.add(s);
                }
            }
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(partitioned
                ? new String[] {"replica", "partition", "reachable", "stream", "role", "view", "leader", "decided", "executed", "lag", "membership"}
                : new String[] {"replica", "reachable", "stream", "role", "view", "leader", "decided", "executed", "lag", "membership"});
        boolean merged = false;
        String unsupported = null;
        List<String> errors = new ArrayList<>();
        for (Answer a : answers) {
            if (a.status() == null) {
                rows.add(row(partitioned, a, "no", "-", "-", "-", "-", "-", "-", "-", "-"));
                errors.add(a.error().startsWith("replica ") ? a.error() : "replica " + a.id() + ": " + a.error());
                continue;
            }
            Map<String, String> st = a.status();
            long executed = number(st, "executed");
            String membership = st.getOrDefault("membership", AdminRoutes.UNSUPPORTED);
            if (membership.equals(AdminRoutes.UNSUPPORTED)) {
                unsupported = st.getOrDefault("ordering", "?");
                membership = "-";
            }
            List<String> streams = streams(st);
            boolean one = streams.size() == 1 && paxosStreams.contains(streams.get(0));
            merged |= !one;
            for (String s : streams.isEmpty() ? List.of("-") : streams) {
                String lag;
                if (one) {
                    long reference = streamLeader.getOrDefault(s, streamMax.getOrDefault(s, executed));
                    lag = Long.toString(Math.max(0, reference - executed));
                } else {
                    lag = Math.max(0, partitionMax.getOrDefault(a.partition(), executed) - executed) + "*";
                }
                rows.add(row(partitioned, a, st.getOrDefault("healthy", "yes").equals("yes") ? "yes" : "yes (stopped)", s,
                        st.getOrDefault(STREAM + s + ".role", "-"), st.getOrDefault(STREAM + s + ".view", "-"),
                        st.getOrDefault("leader", "-"), st.getOrDefault(STREAM + s + ".decided", "-"),
                        Long.toString(executed), lag, membership));
            }
        }
        List<String> out = format(rows);
        out.addAll(errors);
        if (merged) {
            out.add("* lag against the most advanced replica of the partition's executed position (ring skips and merged "
                    + "orders make decided instances and executed positions differ)");
        }
        if (unsupported != null) {
            out.add("membership changes not supported by ordering " + unsupported);
        }
        return out;
    }

    private static String[] row(boolean partitioned, Answer a, String... rest) {
        List<String> cells = new ArrayList<>();
        cells.add(Integer.toString(a.id()));
        if (partitioned) {
            cells.add(Integer.toString(a.partition()));
        }
        cells.addAll(List.of(rest));
        return cells.toArray(String[]::new);
    }

    /** The stream names of a status, in name order. */
    static List<String> streams(Map<String, String> status) {
        TreeSet<String> names = new TreeSet<>();
        for (String k : status.keySet()) {
            if (k.startsWith(STREAM) && k.endsWith(".role")) {
                names.add(k.substring(STREAM.length(), k.length() - ".role".length()));
            }
        }
        return new ArrayList<>(names);
    }

    /** The number under {@code key} in a status, or -1 if absent or not a number. */
    static long number(Map<String, String> status, String key) {
        try {
            return Long.parseLong(status.getOrDefault(key, "-1").strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Columns padded to their widest cell (the last one unpadded). */
    private static List<String> format(List<String[]> rows) {
        int columns = rows.get(0).length;
        int[] width = new int[columns];
        for (String[] r : rows) {
            for (int i = 0; i < columns; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        List<String> out = new ArrayList<>();
        for (String[] r : rows) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                b.append(i == columns - 1 ? r[i] : String.format("%-" + width[i] + "s  ", r[i]));
            }
            out.add(b.toString().stripTrailing());
        }
        return out;
    }

    /** The {@code key=value} lines of a status answer. */
    static Map<String, String> parse(String body) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : body.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                m.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
            }
        }
        return m;
    }
}
