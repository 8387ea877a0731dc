package dev.parallax.examples.cli;

import dev.parallax.core.config.ConfigKey;
import dev.parallax.core.config.KeyTable;
import dev.parallax.core.runtime.ExecutionProvider;
import dev.parallax.core.runtime.ExecutionRegistry;
import dev.parallax.core.runtime.OrderingProvider;
import dev.parallax.core.runtime.OrderingRegistry;
import picocli.CommandLine.Command;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/**
 * {@code parallax keys}: every cluster-file key the modules on the class path register, table by
 * table, with its default and documentation, as the Markdown tables of docs/operations.md
 * ("Configuration key reference"), and the ordering protocols that can be named. Reads nothing
 * but the registry; exit code 0. Never blocks.
 */
@Command(name = "keys", mixinStandardHelpOptions = true,
        description = "List every cluster-file key (Markdown tables: key, default, meaning) and every ordering protocol.")
final class KeysCommand implements Callable<Integer> {
    private final PrintStream out;

    /** Prints on standard output (picocli's constructor). */
    KeysCommand() {
        this(System.out);
    }

    /** Prints on {@code out} (tests capture it). */
    KeysCommand(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() {
        out.println("Ordering protocols (`ordering=`):");
        out.println();
        for (OrderingProvider p : OrderingRegistry.orderings().values()) {
            out.println("- `" + p.name() + "`: " + p.summary());
        }
        out.println();
        out.println("Executors (`execution=`; `s-smr` is built by the replica launcher for the partitioned services):");
        out.println();
        for (ExecutionProvider p : ExecutionRegistry.executions().values()) {
            out.println("- `" + p.name() + "`: " + p.summary());
        }
        for (KeyTable t : OrderingRegistry.keyTables()) {
            out.println();
            out.println("#### " + t.name());
            out.println();
            out.println("| key | default | meaning |");
            out.println("|---|---|---|");
            for (ConfigKey<?> k : t.keys()) {
                out.println("| `" + k.name() + "` | " + (k.defaultText().isEmpty() ? "" : "`" + k.defaultText() + "`") + " | "
                        + k.doc().replace("|", "\\|") + " |");
            }
            for (KeyTable.Family f : t.families()) {
                out.println("| `" + f.display() + "` | | " + f.doc().replace("|", "\\|") + " |");
            }
        }
        return 0;
    }
}
