package dev.parallax.examples.cli;

import org.apache.zookeeper.ZooKeeperMain;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code parallax zkcli -server HOST:PORT[,HOST:PORT...] [command args]}: ZooKeeper's own zkCli
 * ({@link ZooKeeperMain} of the official client, 3.9), for Volery's ZooKeeper front ends
 * ({@code parallax volery} prints the connect string) or any ZooKeeper ensemble. Every argument goes
 * to zkCli unchanged: without a command it is interactive (line editing off: jline is not bundled),
 * with one it runs it and exits with its code. The client's INFO logging is turned down to WARN.
 *
 * <p>Exit code 2, with a message on standard error and no connection attempted, without a
 * {@code -server} address (zkCli's own default, localhost:2181, is rarely a Volery front end).
 * zkCli itself ends the JVM ({@code System.exit}) when it is done; runs on the caller's thread.
 */
@Command(name = "zkcli", mixinStandardHelpOptions = true,
        description = "ZooKeeper's zkCli against Volery's front ends: zkcli -server 127.0.0.1:PORT [command args] "
                + "(the arguments go to zkCli as they are; `parallax volery` prints the connect string).",
        footer = {"", "zkCli's options: -server HOST:PORT[,HOST:PORT...] (required here), -timeout MS, -waitforconnection, -r "
                + "(read-only).", "Its commands (interactive, or one on the command line): ls [-s] [-R] PATH, create [-s] "
                + "PATH [DATA], get [-s] PATH, set [-v VERSION] PATH DATA, stat PATH, delete [-v VERSION] PATH, help, quit.",
                "Volery answers what ZooKeeper's client API needs for these (docs/examples/volery.md lists what it does not serve)."})
final class ZkCliCommand implements Callable<Integer> {
    @Unmatched
    List<String> args = new ArrayList<>();

    private final PrintStream err;

    /** Errors on standard error (picocli's constructor). */
    ZkCliCommand() {
        this(System.err);
    }

    /** Errors on {@code err} (tests capture it). */
    ZkCliCommand(PrintStream err) {
        this.err = err;
    }

    /**
     * Why {@code args} are refused before zkCli runs, or null if they are acceptable: a
     * {@code -server} with an address is required.
     */
    static String refusal(List<String> args) {
        int i = args.indexOf("-server");
        if (i < 0) {
            return "zkcli needs -server HOST:PORT[,HOST:PORT...] (the connect string `parallax volery` prints), e.g. "
                    + "parallax zkcli -server 127.0.0.1:2181";
        }
        if (i + 1 >= args.size() || args.get(i + 1).startsWith("-") || !args.get(i + 1).contains(":")) {
            return "zkcli: -server needs HOST:PORT[,HOST:PORT...], got "
                    + (i + 1 >= args.size() ? "nothing" : "'" + args.get(i + 1) + "'");
        }
        return null;
    }

    @Override
    public Integer call() throws Exception {
        String refusal = refusal(args);
        if (refusal != null) {
            err.println(refusal);
            return 2;
        }
        // Before the client's first logger: slf4j-simple reads these once.
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.zookeeper", "warn");
        System.setProperty("zookeeper.sasl.client", "false");
        ZooKeeperMain.main(args.toArray(String[]::new));
        return 0;
    }
}
