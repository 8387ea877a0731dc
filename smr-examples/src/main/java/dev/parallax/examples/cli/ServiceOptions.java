package dev.parallax.examples.cli;

import picocli.CommandLine.Option;

/**
 * The options that choose what {@code parallax demo} and {@code parallax chaos} run, shared by
 * both as a picocli mixin: {@code --service} (the key-value store or Volery), {@code --partitions}
 * (P of a partitioned run, seed 004 (S-SMR) §IV: P x 3 replica processes) and {@code --tls}; and
 * {@link #refusal}, the one check of what cannot run together. A partitioned run is
 * {@code --service volery} (always S-SMR) or the key-value store with {@code --execution s-smr}
 * ({@link #kvPartitioned}); {@code --partitions} with any other run is refused, not ignored.
 *
 * <p>Filled in by picocli on the parsing thread, then read-only.
 */
final class ServiceOptions {
    /** P when {@code --partitions} is not given. */
    static final int DEFAULT_PARTITIONS = 2;

    @Option(names = "--service", paramLabel = "NAME", defaultValue = ClusterFile.KV,
            description = "The replicated service: " + ClusterFile.KV + " (the key-value store: 3 replicas; with "
                    + "--execution s-smr --partitions x 3, ordering multi-ring) or " + ClusterFile.VOLERY
                    + " (ZooKeeper's API over S-SMR: --partitions x 3 replicas, loaded through ZooKeeper's client; "
                    + "no --ordering, --execution, --execution-threads, --threads or --tls) (default ${DEFAULT-VALUE}).")
    String service = ClusterFile.KV;

    @Option(names = "--partitions", paramLabel = "P",
            description = "Partitions of a partitioned run (--execution s-smr, or --service volery), 1.."
                    + VoleryClusterFile.MAX_PARTITIONS + ", 3 replicas each (default " + DEFAULT_PARTITIONS
                    + "); refused with any other run.")
    Integer partitions;

    @Option(names = "--tls", description = "Mutual TLS between the replicas and TLS for the clients, with throwaway "
            + "certificates generated into the work directory (the key-value store, not with --execution s-smr).")
    boolean tls;

    /** Creates the defaults (picocli fills in what is given). */
    ServiceOptions() {
    }

    /** Whether the service is Volery. */
    boolean volery() {
        return service.equals(ClusterFile.VOLERY);
    }

    /** Whether the run is the key-value store under {@code execution=s-smr}, one partition per 3 replicas. */
    boolean kvPartitioned(RuntimeOptions runtime) {
        return service.equals(ClusterFile.KV) && runtime.execution == Executions.S_SMR;
    }

    /** Whether the run is partitioned: Volery, or {@link #kvPartitioned}. */
    boolean partitioned(RuntimeOptions runtime) {
        return volery() || kvPartitioned(runtime);
    }

    /** P: {@code --partitions}, else {@value #DEFAULT_PARTITIONS}. */
    int partitions() {
        return partitions == null ? DEFAULT_PARTITIONS : partitions;
    }

    /** {@code "2 partitions"}, {@code "1 partition"}. */
    String describePartitions() {
        return partitions() + (partitions() == 1 ? " partition" : " partitions");
    }

    /**
     * Why these options and {@code runtime} cannot run, or null: an unknown service; Volery with a
     * runtime option (its ordering and executor are fixed: multi-ring, s-smr) or {@code --tls} (its
     * ZooKeeper front ends serve plain TCP); the key-value store under s-smr with an ordering other
     * than multi-ring (S-SMR needs a ring per partition and the global ring), with
     * {@code --execution-threads} (each replica executes its partition's commands in delivery
     * order) or {@code --tls} (not run over S-SMR's rings by the demo or the chaos run);
     * {@code --partitions} out of range, or with a run that is not partitioned.
     */
    String refusal(RuntimeOptions runtime) {
        if (!service.equals(ClusterFile.KV) && !volery()) {
            return "--service must be " + ClusterFile.KV + " or " + ClusterFile.VOLERY + ", not '" + service + "'";
        }
        if (volery() && !runtime.clusterSettings().isEmpty()) {
            return "--service volery runs ordering=multi-ring and execution=s-smr: drop " + String.join(", ",
                    runtime.clusterSettings().keySet().stream().map(k -> "--" + k.replace('.', '-')).toList());
        }
        if (volery() && tls) {
            return "--tls is for --service kv: Volery's ZooKeeper front ends serve plain TCP";
        }
        if (kvPartitioned(runtime)) {
            if (runtime.ordering != null && runtime.ordering != Orderings.MULTI_RING) {
                return "--execution s-smr runs ordering=multi-ring (a ring per partition and the global ring): drop --ordering "
                        + runtime.ordering.configName();
            }
            if (runtime.executionThreads != null) {
                return "--execution-threads is not for --execution s-smr: each replica executes its partition's commands in "
                        + "delivery order";
            }
            if (tls) {
                return "--tls is not run with --execution s-smr: the demo and the chaos run start S-SMR's rings over plain TCP";
            }
        }
        if (partitions != null && !partitioned(runtime)) {
            return "--partitions is for a partitioned run (--execution s-smr or --service volery); the key-value store runs "
                    + "3 replicas otherwise";
        }
        try {
            VoleryClusterFile.checkPartitions(partitions());
        } catch (IllegalArgumentException e) {
            return "--" + e.getMessage();
        }
        return null;
    }
}
