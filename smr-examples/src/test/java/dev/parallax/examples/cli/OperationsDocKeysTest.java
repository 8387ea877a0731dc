package dev.parallax.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parallax.core.config.ConfigKey;
import dev.parallax.core.config.KeyTable;
import dev.parallax.core.runtime.ExecutionRegistry;
import dev.parallax.core.runtime.OrderingRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * docs/operations.md lists every registered configuration key: the tables of every module on the
 * class path (the replica's, each protocol's, the services'), written as {@code `key`}. A missing
 * key fails with a row to paste (name, default, documentation from the key itself).
 */
class OperationsDocKeysTest {

    @Test
    @DisplayName("every registered key and key family is listed in docs/operations.md")
    void everyRegisteredKeyIsDocumented() throws IOException {
        String doc = Files.readString(repositoryRoot().resolve("docs/operations.md"));
        List<KeyTable> tables = OrderingRegistry.keyTables();
        assertThat(tables).as("registered tables").extracting(KeyTable::name)
                .contains("Replica", "Cluster", "Multi-Paxos", "S-Paxos", "Reference multicast", "Ring Paxos", "Multi-Ring Paxos",
                        "Services");
        List<String> missing = new ArrayList<>();
        for (KeyTable t : tables) {
            for (ConfigKey<?> k : t.keys()) {
                if (!doc.contains("`" + k.name() + "`")) {
                    missing.add("| `" + k.name() + "` | " + k.defaultText() + " | " + k.doc() + " |   (" + t.name() + ")");
                }
            }
            for (KeyTable.Family f : t.families()) {
                if (!doc.contains("`" + f.display() + "`")) {
                    missing.add("| `" + f.display() + "` | | " + f.doc() + " |   (" + t.name() + ")");
                }
            }
        }
        assertThat(missing).as("keys missing from docs/operations.md (rows to add)").isEmpty();
    }

    @Test
    @DisplayName("every registered ordering protocol is named in docs/operations.md and known to the CLI")
    void everyOrderingIsDocumented() throws IOException {
        String doc = Files.readString(repositoryRoot().resolve("docs/operations.md"));
        for (String name : OrderingRegistry.orderings().keySet()) {
            assertThat(doc).as("ordering " + name).contains("`" + name + "`");
        }
        assertThat(OrderingRegistry.orderings().keySet()).as("the CLI's Orderings and the registry agree")
                .containsExactlyInAnyOrderElementsOf(Orderings.names());
    }

    @Test
    @DisplayName("every registered executor is named in docs/operations.md; the CLI knows them, plus s-smr (built by the launcher)")
    void everyExecutionIsDocumented() throws IOException {
        String doc = Files.readString(repositoryRoot().resolve("docs/operations.md"));
        for (String name : ExecutionRegistry.executions().keySet()) {
            assertThat(doc).as("execution " + name).contains("`" + name + "`");
        }
        java.util.Set<String> cli = new java.util.TreeSet<>(Executions.names());
        cli.remove(Executions.S_SMR.configName());
        assertThat(ExecutionRegistry.executions().keySet()).as("the CLI's Executions and the registry agree")
                .containsExactlyInAnyOrderElementsOf(cli);
    }

    static Path repositoryRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("docs"))) {
            p = p.getParent();
        }
        assertThat(p).as("a directory with docs/ above " + Path.of("").toAbsolutePath()).isNotNull();
        return p;
    }
}
