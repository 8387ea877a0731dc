package dev.parallax.examples.kv;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits an inline (telnet-style) request line into arguments as Redis' {@code sdssplitargs}
 * does: whitespace separates arguments; double quotes allow {@code \n \r \t \b \a \\ \" \xHH}
 * escapes, single quotes allow {@code \'}; a closing quote must be followed by whitespace or the
 * end of the line. Stateless and thread-safe.
 */
final class InlineArgs {
    private InlineArgs() {
    }

    /**
     * The arguments of {@code line} (without its line terminator); empty for a blank line.
     *
     * @throws IllegalArgumentException if a quote is not closed, or closed and followed by a
     *                                  non-space character
     */
    static byte[][] split(byte[] line) {
        List<byte[]> args = new ArrayList<>();
        ByteArrayOutputStream current = new ByteArrayOutputStream();
        int p = 0;
        int n = line.length;
        while (true) {
            while (p < n && isSpace(line[p])) {
                p++;
            }
            if (p == n) {
                return args.toArray(new byte[0][]);
            }
            boolean inDouble = false;
            boolean inSingle = false;
            boolean done = false;
            current.reset();
            while (!done) {
                if (inDouble) {
                    if (p == n) {
                        throw unbalanced();
                    }
                    byte c = line[p];
                    if (c == '\\' && p + 3 < n && line[p + 1] == 'x' && isHex(line[p + 2]) && isHex(line[p + 3])) {
                        current.write(hex(line[p + 2]) * 16 + hex(line[p + 3]));
                        p += 3;
                    } else if (c == '\\' && p + 1 < n) {
                        p++;
                        current.write(unescape(line[p]));
                    } else if (c == '"') {
                        if (p + 1 < n && !isSpace(line[p + 1])) {
                            throw unbalanced();
                        }
                        done = true;
                    } else {
                        current.write(c);
                    }
                } else if (inSingle) {
                    if (p == n) {
                        throw unbalanced();
                    }
                    byte c = line[p];
                    if (c == '\\' && p + 1 < n && line[p + 1] == '\'') {
                        p++;
                        current.write('\'');
                    } else if (c == '\'') {
                        if (p + 1 < n && !isSpace(line[p + 1])) {
                            throw unbalanced();
                        }
                        done = true;
                    } else {
                        current.write(c);
                    }
                } else if (p == n || isSpace(line[p])) {
                    done = true;
                } else if (line[p] == '"') {
                    inDouble = true;
                } else if (line[p] == '\'') {
                    inSingle = true;
                } else {
                    current.write(line[p]);
                }
                if (p < n) {
                    p++;
                }
            }
            args.add(current.toByteArray());
        }
    }

    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == '\f';
    }

    private static boolean isHex(byte c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    private static int hex(byte c) {
        return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
    }

    private static int unescape(byte c) {
        switch (c) {
            case 'n':
                return '\n';
            case 'r':
                return '\r';
            case 't':
                return '\t';
            case 'b':
                return '\b';
            case 'a':
                return 7;
            default:
                return c;
        }
    }

    private static IllegalArgumentException unbalanced() {
        return new IllegalArgumentException("unbalanced quotes in request");
    }
}
