package dev.parallax.examples.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code parallax} command line: {@code replica} (run one replica), {@code kv} (one command to
 * the key-value store), {@code demo} (a local 3-replica cluster under load whose leader is killed,
 * restarted and checked to catch up) and {@code chaos} (random kills, restarts and partitions, then
 * a linearizability, lost-write and convergence verdict), {@code certs} (a throwaway CA and TLS
 * certificates for a local cluster), {@code volery} (a local Volery cluster, ZooKeeper's API over
 * S-SMR, until Ctrl-C), {@code zkcli} (ZooKeeper's zkCli against its front ends) and {@code admin}
 * (status, members, snapshots and membership changes of a running cluster, {@link AdminCommand}). Run as {@code ./parallax <command> --help}
 * from the repository root; {@code ./parallax bench} (the load generator) lives in the benchmarks
 * module, and {@code ./parallax testbed} is a shell script; the usage's footer lists both. Used from one
 * thread; {@link #main} blocks until the command ends.
 */
@Command(name = "parallax", mixinStandardHelpOptions = true, version = "parallax 0.1.0",
        description = "High-throughput state machine replication: run replicas, a KV client, a demo cluster "
                + "(leader killed and restarted), a chaos run, or a local Volery (ZooKeeper API) cluster with zkCli; "
                + "admin operates a running cluster.",
        footerHeading = "%nCommands of the parallax launcher script (not of this jar):%n",
        footer = {"  bench     The load generator: runs, sweeps, --compare (source checkout only).",
                "  testbed   Hosts in network namespaces (root): up [--hosts N] | down | status."},
        subcommands = {ReplicaCommand.class, KvCommandLine.class, DemoCommand.class, ChaosCommand.class, CertsCommand.class,
                KeysCommand.class, VoleryClusterCommand.class, ZkCliCommand.class, AdminCommand.class, ClusterCommand.class})
public final class ParallaxCli implements Runnable {

    /**
     * Runs one command and exits with its code, except while a replica started by {@code replica}
     * keeps running (it exits on SIGTERM).
     */
    public static void main(String[] args) {
        int code = new CommandLine(new ParallaxCli()).setCaseInsensitiveEnumValuesAllowed(true).execute(args);
        if (code != 0 || !ReplicaCommand.RUNNING.get()) {
            System.exit(code);
        }
    }

    /** Without a command: prints the usage. */
    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
