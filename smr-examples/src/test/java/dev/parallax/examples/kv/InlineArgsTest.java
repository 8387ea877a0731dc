package dev.parallax.examples.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class InlineArgsTest {
    private static byte[][] split(String line) {
        return InlineArgs.split(line.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static byte[][] args(String... args) {
        byte[][] out = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            out[i] = args[i].getBytes(StandardCharsets.ISO_8859_1);
        }
        return out;
    }

    @Test
    void splitsOnAnyWhitespace() {
        assertThat(split("  a \t bb\u000bccc  ")).isEqualTo(args("a", "bb", "ccc"));
        assertThat(split("")).isEmpty();
        assertThat(split(" \t ")).isEmpty();
    }

    /** As in Redis, a backslash before any other character (here an incomplete hex escape) is dropped. */
    @Test
    void doubleQuotesKeepSpacesAndUnescape() {
        assertThat(split("\"a b\" \"\\n\\r\\t\\b\\a\\\\\\\"\" \"\\xfF\\x4\"")).isEqualTo(new byte[][] {
            "a b".getBytes(StandardCharsets.ISO_8859_1),
            {'\n', '\r', '\t', '\b', 7, '\\', '"'},
            {(byte) 0xff, 'x', '4'}});
    }

    @Test
    void singleQuotesOnlyUnescapeQuote() {
        assertThat(split("'a\\'b\\n'")).isEqualTo(args("a'b\\n"));
    }

    @Test
    void quotesInsideAWordStartQuoting() {
        assertThat(split("ab\"c d\" e")).isEqualTo(args("abc d", "e"));
        assertThat(split("\"\"")).isEqualTo(args(""));
    }

    @Test
    void unbalancedQuotesAreRejected() {
        for (String bad : new String[] {"\"abc", "'abc", "\"a\"b", "'a'b", "\"a\\\""}) {
            assertThatThrownBy(() -> split(bad)).as(bad).hasMessage("unbalanced quotes in request");
        }
    }
}
