package dev.parallax.examples.cli;

import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.function.BiFunction;

/**
 * One run of a {@code parallax} subcommand in this JVM with its output and errors captured: the
 * command is built by {@code command} over the two captured streams, as the commands' test
 * constructors take them. Runs on the calling thread and blocks until the command returns.
 *
 * @param code the exit code picocli returned
 * @param out  what the command printed on its output
 * @param err  what it and picocli printed on its error stream
 */
record CliRun(int code, String out, String err) {

    static CliRun of(BiFunction<PrintStream, PrintStream, Object> command, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine cl = new CommandLine(command.apply(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)));
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        int code = cl.execute(args);
        return new CliRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
