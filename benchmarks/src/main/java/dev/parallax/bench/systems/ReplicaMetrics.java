package dev.parallax.bench.systems;

import dev.parallax.bench.profile.StageSampler;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the replicas of a {@link ReplicaCluster} report on their metrics endpoints, for the systems
 * that run {@code parallax replica} JVMs ({@link ParallaxSystem}, {@link VolerySystem}): their
 * health counters as a report, and the byte counters behind the per-replica balance columns and the
 * efficiency metric (seed 003 (Ring Paxos) §3.1 ¶2). Stateless; safe from any thread; every method
 * blocks for one HTTP request per replica.
 */
final class ReplicaMetrics {
    private static final List<String> HEALTH_METERS = List.of("parallax_paxos_view_changes_total",
            "parallax_commands_duplicate_total", "parallax_commands_executed_total", "parallax_protocol_decided_total",
            "parallax_protocol_inbound_dropped_total", "parallax_net_dropped_total");
    /** Bytes a replica sends: to its peers (all channels) and to its clients. */
    private static final List<String> BYTES_METERS = List.of("parallax_net_bytes_sent_total",
            "parallax_client_bytes_sent_total");
    /** What a replica sends to its peers: every replica-port channel and every datagram group. */
    private static final List<String> PEER_BYTES_METERS = List.of("parallax_net_bytes_sent_total",
            "parallax_net_datagram_bytes_sent_total");
    /** Bytes of decided values a replica handed to its state machine. */
    private static final List<String> DELIVERED_METERS = List.of("parallax_protocol_delivered_bytes_total");

    private ReplicaMetrics() {
    }

    /**
     * Every replica's health counters since it started (view changes, duplicates answered from
     * sessions, commands executed, instances decided, messages dropped), one line per replica.
     */
    static String healthCounters(ReplicaCluster cluster) {
        return counters(cluster, "replica counters since start (view changes, duplicates answered from sessions, commands "
                + "executed, instances decided, messages dropped inbound / at send queues):", HEALTH_METERS);
    }

    /**
     * Every replica's S-SMR caching counters since it started (variables sent with their value, sent
     * as current, unresolvable, malformed; seed 004 §IV-C). Blocks for the metrics endpoints.
     */
    static String cacheCounters(ReplicaCluster cluster) {
        return counters(cluster, "S-SMR caching counters since start:", List.of("parallax_ssmr_cache_values_total",
                "parallax_ssmr_cache_current_total", "parallax_ssmr_cache_misses_total", "parallax_ssmr_cache_malformed_total"));
    }

    private static String counters(ReplicaCluster cluster, String title, List<String> meters) {
        StringBuilder sb = new StringBuilder();
        sb.append(title).append(System.lineSeparator());
        for (int i = 0; i < cluster.size(); i++) {
            try {
                Map<String, Double> t = StageSampler.totals(cluster.metricsHost(i), cluster.metricsPort(i), meters);
                sb.append("  replica ").append(i).append(':');
                t.forEach((k, v) -> sb.append(' ').append(k.replace("parallax_", "")).append('=').append(String.format(
                        Locale.ROOT, "%.0f", v)));
                sb.append(System.lineSeparator());
            } catch (IOException e) {
                sb.append("  replica ").append(i).append(": metrics unavailable: ").append(e).append(System.lineSeparator());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return sb.toString();
    }

    /**
     * Per replica: bytes written to its peers (every channel of the replica port,
     * {@code parallax_net_bytes_sent_total}) and to its clients ({@code parallax_client_bytes_sent_total}).
     */
    static Map<String, Double> bytesSent(ReplicaCluster cluster) {
        return perReplica(cluster, BYTES_METERS);
    }

    /**
     * Per replica: bytes sent to its peers over the replica port ({@code parallax_net_bytes_sent_total})
     * and datagram groups ({@code parallax_net_datagram_bytes_sent_total}), client replies excluded.
     */
    static Map<String, Double> peerBytesSent(ReplicaCluster cluster) {
        return perReplica(cluster, PEER_BYTES_METERS);
    }

    /** Per replica: bytes of decided values handed to the state machine ({@code parallax_protocol_delivered_bytes_total}). */
    static Map<String, Double> deliveredBytes(ReplicaCluster cluster) {
        return perReplica(cluster, DELIVERED_METERS);
    }

    /**
     * The sum of {@code meters} scraped from the metrics endpoint of each replica of {@code cluster}
     * ({@code replica-<i>}); -1 for a replica that does not answer.
     */
    private static Map<String, Double> perReplica(ReplicaCluster cluster, List<String> meters) {
        Map<String, Double> values = new LinkedHashMap<>();
        for (int i = 0; i < cluster.size(); i++) {
            double v;
            try {
                v = StageSampler.totals(cluster.metricsHost(i), cluster.metricsPort(i), meters).values().stream()
                        .mapToDouble(Double::doubleValue).sum();
            } catch (IOException e) {
                v = -1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                v = -1;
            }
            values.put("replica-" + i, v);
        }
        return values;
    }
}
