package dev.parallax.examples.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test code: just enough JSON and YAML parsing to check the observability files (no JSON or YAML
 * library is on the test class path). JSON: the whole grammar, numbers as doubles. YAML: block
 * mappings and block sequences by indentation, plain and double-quoted scalars, comments; no flow
 * collections, anchors or multi-line scalars (the files use none). Stateless; thread-safe.
 */
final class TinyParsers {
    private TinyParsers() {
    }

    /** The JSON value of {@code text}: maps, lists, strings, doubles, booleans and null. */
    static Object json(String text) {
        Json p = new Json(text);
        Object v = p.value();
        p.skipSpace();
        if (p.at != text.length()) {
            throw new IllegalArgumentException("trailing text at " + p.at);
        }
        return v;
    }

    private static final class Json {
        final String s;
        int at;

        Json(String s) {
            this.s = s;
        }

        void skipSpace() {
            while (at < s.length() && Character.isWhitespace(s.charAt(at))) {
                at++;
            }
        }

        void expect(char c) {
            skipSpace();
            if (at >= s.length() || s.charAt(at) != c) {
                throw new IllegalArgumentException("expected '" + c + "' at " + at);
            }
            at++;
        }

        Object value() {
            skipSpace();
            if (at >= s.length()) {
                throw new IllegalArgumentException("value expected at end");
            }
            char c = s.charAt(at);
            if (c == '{') {
                Map<String, Object> m = new LinkedHashMap<>();
                at++;
                skipSpace();
                if (s.charAt(at) == '}') {
                    at++;
                    return m;
                }
                do {
                    skipSpace();
                    String k = string();
                    expect(':');
                    if (m.put(k, value()) != null) {
                        throw new IllegalArgumentException("duplicate key " + k);
                    }
                    skipSpace();
                } while (s.charAt(at++) == ',');
                if (s.charAt(at - 1) != '}') {
                    throw new IllegalArgumentException("expected '}' at " + (at - 1));
                }
                return m;
            }
            if (c == '[') {
                List<Object> l = new ArrayList<>();
                at++;
                skipSpace();
                if (s.charAt(at) == ']') {
                    at++;
                    return l;
                }
                do {
                    l.add(value());
                    skipSpace();
                } while (s.charAt(at++) == ',');
                if (s.charAt(at - 1) != ']') {
                    throw new IllegalArgumentException("expected ']' at " + (at - 1));
                }
                return l;
            }
            if (c == '"') {
                return string();
            }
            for (String word : new String[] {"true", "false", "null"}) {
                if (s.startsWith(word, at)) {
                    at += word.length();
                    return word.equals("null") ? null : Boolean.valueOf(word);
                }
            }
            int start = at;
            while (at < s.length() && "+-0123456789.eE".indexOf(s.charAt(at)) >= 0) {
                at++;
            }
            if (start == at) {
                throw new IllegalArgumentException("unexpected '" + c + "' at " + at);
            }
            return Double.parseDouble(s.substring(start, at));
        }

        String string() {
            if (s.charAt(at) != '"') {
                throw new IllegalArgumentException("string expected at " + at);
            }
            StringBuilder b = new StringBuilder();
            at++;
            while (s.charAt(at) != '"') {
                char c = s.charAt(at++);
                if (c == '\\') {
                    char e = s.charAt(at++);
                    switch (e) {
                        case 'n' -> b.append('\n');
                        case 't' -> b.append('\t');
                        case 'u' -> {
                            b.append((char) Integer.parseInt(s.substring(at, at + 4), 16));
                            at += 4;
                        }
                        default -> b.append(e);
                    }
                } else {
                    b.append(c);
                }
            }
            at++;
            return b.toString();
        }
    }

    /** The YAML document of {@code lines}: maps, lists and string scalars. */
    static Object yaml(List<String> lines) {
        List<String> kept = new ArrayList<>();
        for (String l : lines) {
            String t = l.strip();
            if (!t.isEmpty() && !t.startsWith("#")) {
                if (l.indexOf('\t') >= 0) {
                    throw new IllegalArgumentException("tab in: " + l);
                }
                kept.add(l.stripTrailing());
            }
        }
        Yaml y = new Yaml(kept);
        Object v = y.block(0);
        if (y.at != kept.size()) {
            throw new IllegalArgumentException("unexpected indentation at: " + kept.get(y.at));
        }
        return v;
    }

    private static final class Yaml {
        final List<String> lines;
        int at;

        Yaml(List<String> lines) {
            this.lines = lines;
        }

        static int indent(String l) {
            int i = 0;
            while (l.charAt(i) == ' ') {
                i++;
            }
            return i;
        }

        /** The block whose lines are indented exactly {@code indent}. */
        Object block(int indent) {
            String first = lines.get(at);
            if (indent(first) != indent) {
                throw new IllegalArgumentException("bad indentation at: " + first);
            }
            return first.substring(indent).startsWith("- ") ? sequence(indent) : mapping(indent, null);
        }

        List<Object> sequence(int indent) {
            List<Object> l = new ArrayList<>();
            while (at < lines.size() && indent(lines.get(at)) == indent && lines.get(at).substring(indent).startsWith("- ")) {
                String item = lines.get(at).substring(indent + 2);
                if (item.contains(": ") || item.endsWith(":")) {
                    l.add(mapping(indent + 2, item));
                } else {
                    at++;
                    l.add(scalar(item));
                }
            }
            return l;
        }

        /** A mapping at {@code indent}; {@code firstEntry} is the entry that shares its line with a "- ". */
        Map<String, Object> mapping(int indent, String firstEntry) {
            Map<String, Object> m = new LinkedHashMap<>();
            boolean first = firstEntry != null;
            while (at < lines.size()) {
                String entry;
                if (first) {
                    entry = firstEntry;
                    first = false;
                } else {
                    String l = lines.get(at);
                    if (indent(l) != indent || l.substring(indent).startsWith("- ")) {
                        break;
                    }
                    entry = l.substring(indent);
                }
                at++;
                int colon = entry.indexOf(':');
                if (colon <= 0) {
                    throw new IllegalArgumentException("key expected: " + entry);
                }
                String key = entry.substring(0, colon);
                String rest = entry.substring(colon + 1).strip();
                Object value;
                if (!rest.isEmpty()) {
                    value = scalar(rest);
                } else if (at < lines.size() && indent(lines.get(at)) > indent) {
                    value = block(indent(lines.get(at)));
                } else if (at < lines.size() && indent(lines.get(at)) == indent && lines.get(at).substring(indent).startsWith("- ")) {
                    value = sequence(indent);
                } else {
                    value = null;
                }
                if (m.put(key, value) != null) {
                    throw new IllegalArgumentException("duplicate key " + key);
                }
            }
            return m;
        }

        static String scalar(String s) {
            if (s.startsWith("\"")) {
                if (!s.endsWith("\"") || s.length() < 2) {
                    throw new IllegalArgumentException("unterminated string: " + s);
                }
                return s.substring(1, s.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
            }
            if (s.startsWith("'") || s.startsWith("{") || s.startsWith("[") || s.startsWith("&") || s.startsWith("*")
                    || s.startsWith("|") || s.startsWith(">")) {
                throw new IllegalArgumentException("unsupported scalar: " + s);
            }
            return s;
        }
    }
}
