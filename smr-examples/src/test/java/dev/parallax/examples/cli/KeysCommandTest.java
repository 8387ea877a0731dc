package dev.parallax.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@code parallax keys} prints every registered protocol, executor and key table as Markdown. */
class KeysCommandTest {

    @Test
    @DisplayName("protocols, executors and one table per module, each key with its default")
    void printsTheRegistry() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code = new KeysCommand(new PrintStream(bytes, true, StandardCharsets.UTF_8)).call();
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(code).isZero();
        assertThat(out).contains("- `multi-paxos`: ", "- `m-ring`: ", "- `early-busy-wait`: ", "- `sequential`: ",
                "### Ring Paxos", "### Replica", "### Multi-Paxos",
                "| `ring.window` | `32` |", "| `paxos.window` | `10` |", "| `tls.cert.<id>` | |");
    }
}
