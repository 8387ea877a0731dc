package dev.parallax.examples.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code parallax} command line: {@code replica}, {@code kv}, {@code demo}. Run as
 * {@code ./parallax <command> --help} from the repository root.
 */
@Command(name = "parallax", mixinStandardHelpOptions = true, version = "parallax 0.1.0",
        description = "High-throughput state machine replication: run replicas, a demo cluster, or a KV client.",
        subcommands = {ReplicaCommand.class, KvCommandLine.class, DemoCommand.class, ChaosCommand.class})
public final class ParallaxCli implements Runnable {

    public static void main(String[] args) {
        int code = new CommandLine(new ParallaxCli()).setCaseInsensitiveEnumValuesAllowed(true).execute(args);
        if (code != 0 || !ReplicaCommand.RUNNING.get()) {
            System.exit(code);
        }
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
