package dev.parallax.examples.cli;

import dev.parallax.examples.testbed.Testbed;
import picocli.CommandLine.Option;

/**
 * {@code --hosts}, shared by the demo and the chaos run: the replicas run one per host of the test
 * bed ({@code ./parallax testbed up --hosts N}) instead of on 127.0.0.1. Picocli fills it on the
 * command's thread; read once.
 */
final class TestbedOption {
    @Option(names = "--hosts", description = "Run each replica in its own host of the test bed (network namespaces on a "
            + "bridge: ./parallax testbed up --hosts N first, as root; replica i in host i mod N).")
    boolean hosts;

    /**
     * The test bed when {@code --hosts} is given, else null.
     *
     * @throws IllegalStateException with the reason when it is given but no test bed can be used
     */
    Testbed attach() {
        return hosts ? Testbed.attach() : null;
    }

    /** Where the replicas run, for a banner: "on 127.0.0.1" or "on 3 test-bed hosts ...". */
    static String where(Testbed bed) {
        return bed == null ? "on 127.0.0.1" : "on " + bed;
    }
}
