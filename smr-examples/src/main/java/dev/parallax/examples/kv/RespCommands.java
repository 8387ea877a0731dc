package dev.parallax.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The command table: each command's name, Redis arity and action. Data commands (GET, SET, DEL,
 * EXISTS, INCR, MGET, MSET, STRLEN, and the whole-store DBSIZE and FLUSHALL) become {@link KvCommand}s
 * for the invoker, the read-only ones ({@link KvOp#isReadOnly}) as reads ({@link RespSession#read});
 * connection and server
 * commands that {@code redis-cli}, {@code redis-benchmark} and client libraries send (PING, ECHO,
 * COMMAND, CONFIG GET, CLIENT, SELECT, INFO, HELLO, QUIT) are answered locally.
 *
 * <p>SET supports the NX and XX conditions; expiry (EX, PX, EXAT, PXAT, KEEPTTL) and GET are
 * rejected with a syntax error, because the store keeps no clock a replicated state machine could
 * read deterministically. FLUSHALL takes Redis's optional ASYNC or SYNC (both flush at once:
 * execution is already in the replicated order); any other argument is a syntax error.
 *
 * <p>Immutable after construction and shared by all connections; actions run on the calling
 * connection's event loop and never block.
 */
final class RespCommands {

    /** A command's action on the session it arrived on. */
    @FunctionalInterface
    interface Action {
        void run(RespRequest request, RespSession session);
    }

    /**
     * One command.
     *
     * @param name   lower-case name, as Redis reports it in errors
     * @param arity  Redis convention: n means exactly n words including the name, -n at least n
     * @param action what it does
     */
    record Spec(String name, int arity, Action action) {
        boolean acceptsArgc(int argc) {
            return arity >= 0 ? argc == arity : argc >= -arity;
        }
    }

    /** The version this front end claims: its RESP2 subset and error texts follow Redis 7. */
    static final String REDIS_VERSION = "7.0.0";
    private static final int MAX_COMMAND_NAME = 32;
    private static final RespReply NOT_AN_INTEGER = new RespReply.Error(KvStateMachine.NOT_AN_INTEGER);
    private static final RespReply SYNTAX_ERROR = new RespReply.Error("ERR syntax error");
    private static final Map<String, String> CONFIG = new LinkedHashMap<>();

    static {
        // What redis-benchmark asks for at start (CONFIG GET save, CONFIG GET appendonly), and the
        // database count SELECT honours.
        CONFIG.put("save", "");
        CONFIG.put("appendonly", "no");
        CONFIG.put("databases", "1");
    }

    private final Map<String, Spec> byName = new HashMap<>();

    RespCommands() {
        data("get", 2, KvOp.GET);
        add("set", -3, RespCommands::set);
        data("del", -2, KvOp.DEL);
        data("exists", -2, KvOp.EXISTS);
        data("incr", 2, KvOp.INCR);
        data("mget", -2, KvOp.MGET);
        add("mset", -3, RespCommands::mset);
        data("strlen", 2, KvOp.STRLEN);
        data("dbsize", 1, KvOp.DBSIZE);
        add("flushall", -1, RespCommands::flushall);
        add("ping", -1, RespCommands::ping);
        add("echo", 2, (r, s) -> s.reply(new RespReply.Bulk(r.arg(1))));
        add("command", -1, this::command);
        add("config", -2, RespCommands::config);
        add("client", -2, RespCommands::client);
        add("select", 2, RespCommands::select);
        add("info", -1, (r, s) -> s.reply(RespReply.Bulk.of(info())));
        add("hello", -1, RespCommands::hello);
        add("quit", -1, (r, s) -> s.quit());
    }

    private void data(String name, int arity, KvOp op) {
        add(name, arity, op.isReadOnly() ? (r, s) -> s.read(KvCommand.encode(op, r.args(), 1))
                : (r, s) -> s.invoke(KvCommand.encode(op, r.args(), 1)));
    }

    private void add(String name, int arity, Action action) {
        byName.put(name, new Spec(name, arity, action));
    }

    /** The command named {@code name} (any letter case), or null. */
    Spec lookup(byte[] name) {
        if (name.length == 0 || name.length > MAX_COMMAND_NAME) {
            return null;
        }
        byte[] lower = new byte[name.length];
        for (int i = 0; i < name.length; i++) {
            byte b = name[i];
            lower[i] = b >= 'A' && b <= 'Z' ? (byte) (b + 32) : b;
        }
        return byName.get(new String(lower, StandardCharsets.ISO_8859_1));
    }

    Collection<String> names() {
        return List.copyOf(byName.keySet());
    }

    private static void set(RespRequest r, RespSession s) {
        KvOp op = KvOp.SET;
        for (int i = 3; i < r.argc(); i++) {
            String option = r.text(i).toUpperCase(Locale.ROOT);
            if (option.equals("NX") && op == KvOp.SET) {
                op = KvOp.SET_IF_ABSENT;
            } else if (option.equals("XX") && op == KvOp.SET) {
                op = KvOp.SET_IF_PRESENT;
            } else if (List.of("EX", "PX", "EXAT", "PXAT", "KEEPTTL", "GET").contains(option)) {
                s.reply(new RespReply.Error("ERR syntax error: SET option '" + r.text(i)
                        + "' is not supported (only NX and XX are)"));
                return;
            } else {
                s.reply(SYNTAX_ERROR);
                return;
            }
        }
        s.invoke(KvCommand.encode(op, new byte[][] {r.arg(1), r.arg(2)}, 0));
    }

    private static void mset(RespRequest r, RespSession s) {
        if (r.argc() % 2 == 0) {
            s.reply(new RespReply.Error(RespErrors.wrongArity("mset")));
            return;
        }
        s.invoke(KvCommand.encode(KvOp.MSET, r.args(), 1));
    }

    private static void flushall(RespRequest r, RespSession s) {
        if (r.argc() > 2 || (r.argc() == 2 && !r.text(1).equalsIgnoreCase("async")
                && !r.text(1).equalsIgnoreCase("sync"))) {
            s.reply(SYNTAX_ERROR);
            return;
        }
        s.invoke(KvCommand.encode(KvOp.FLUSHALL, new byte[0][], 0));
    }

    private static void ping(RespRequest r, RespSession s) {
        if (r.argc() > 2) {
            s.reply(new RespReply.Error(RespErrors.wrongArity("ping")));
        } else {
            s.reply(r.argc() == 1 ? RespReply.PONG : new RespReply.Bulk(r.arg(1)));
        }
    }

    /** COMMAND COUNT is answered; every other form gets an empty array (no command docs). */
    private void command(RespRequest r, RespSession s) {
        if (r.argc() >= 2 && r.text(1).equalsIgnoreCase("count")) {
            s.reply(new RespReply.Int(byName.size()));
        } else {
            s.reply(RespReply.EMPTY_ARRAY);
        }
    }

    private static void config(RespRequest r, RespSession s) {
        if (!r.text(1).equalsIgnoreCase("get")) {
            s.reply(new RespReply.Error(RespErrors.unknownSubcommand("config", r.text(1), "CONFIG GET")));
            return;
        }
        if (r.argc() < 3) {
            s.reply(new RespReply.Error(RespErrors.wrongArity("config|get")));
            return;
        }
        List<RespReply> pairs = new ArrayList<>();
        for (Map.Entry<String, String> e : CONFIG.entrySet()) {
            for (int i = 2; i < r.argc(); i++) {
                if (Glob.matches(r.text(i).toLowerCase(Locale.ROOT), e.getKey())) {
                    pairs.add(RespReply.Bulk.of(e.getKey()));
                    pairs.add(RespReply.Bulk.of(e.getValue()));
                    break;
                }
            }
        }
        s.reply(new RespReply.Array(pairs));
    }

    private static void client(RespRequest r, RespSession s) {
        String sub = r.text(1).toLowerCase(Locale.ROOT);
        switch (sub) {
            case "setname":
                if (r.argc() != 3) {
                    s.reply(new RespReply.Error(RespErrors.wrongArity("client|setname")));
                } else {
                    setName(r.arg(2), s);
                }
                break;
            case "setinfo":
                s.reply(r.argc() == 4 ? RespReply.OK : new RespReply.Error(RespErrors.wrongArity("client|setinfo")));
                break;
            case "getname":
                s.reply(new RespReply.Bulk(s.name()));
                break;
            case "id":
                s.reply(new RespReply.Int(s.id()));
                break;
            default:
                s.reply(new RespReply.Error(RespErrors.unknownSubcommand("client", r.text(1),
                        "CLIENT SETNAME, SETINFO, GETNAME, ID")));
        }
    }

    private static void setName(byte[] name, RespSession s) {
        for (byte b : name) {
            if (b < '!' || b > '~') {
                s.reply(new RespReply.Error("ERR Client names cannot contain spaces, newlines or special characters."));
                return;
            }
        }
        s.name(name.length == 0 ? null : name);
        s.reply(RespReply.OK);
    }

    /** One database, number 0, as a Redis cluster node has. */
    private static void select(RespRequest r, RespSession s) {
        long db;
        try {
            db = RedisIntegers.parse(r.arg(1));
        } catch (NumberFormatException e) {
            s.reply(NOT_AN_INTEGER);
            return;
        }
        s.reply(db == 0 ? RespReply.OK : new RespReply.Error("ERR DB index is out of range"));
    }

    /** HELLO [2 [SETNAME name]]: this server speaks RESP2 only, so HELLO 3 gets NOPROTO. */
    private static void hello(RespRequest r, RespSession s) {
        if (r.argc() >= 2) {
            long version;
            try {
                version = RedisIntegers.parse(r.arg(1));
            } catch (NumberFormatException e) {
                s.reply(new RespReply.Error("ERR Protocol version is not an integer or out of range"));
                return;
            }
            if (version != 2) {
                s.reply(new RespReply.Error("NOPROTO unsupported protocol version"));
                return;
            }
            if (r.argc() == 4 && r.text(2).equalsIgnoreCase("setname")) {
                s.name(r.arg(3));
            } else if (r.argc() != 2) {
                s.reply(SYNTAX_ERROR);
                return;
            }
        }
        s.reply(new RespReply.Array(List.of(
                RespReply.Bulk.of("server"), RespReply.Bulk.of("parallax-kv"),
                RespReply.Bulk.of("version"), RespReply.Bulk.of(REDIS_VERSION),
                RespReply.Bulk.of("proto"), new RespReply.Int(2),
                RespReply.Bulk.of("id"), new RespReply.Int(s.id()),
                RespReply.Bulk.of("mode"), RespReply.Bulk.of("standalone"),
                RespReply.Bulk.of("role"), RespReply.Bulk.of("master"),
                RespReply.Bulk.of("modules"), RespReply.EMPTY_ARRAY)));
    }

    private static String info() {
        return "# Server\r\nredis_version:" + REDIS_VERSION + "\r\nredis_mode:standalone\r\n"
                + "server_name:parallax-kv\r\n\r\n# Replication\r\nrole:master\r\n";
    }

    /** Glob matching with {@code *} and {@code ?}, enough for CONFIG GET patterns; O(pattern x text). */
    static final class Glob {
        private Glob() {
        }

        static boolean matches(String pattern, String text) {
            int p = 0;
            int t = 0;
            int star = -1;
            int resume = 0;
            while (t < text.length()) {
                char c = p < pattern.length() ? pattern.charAt(p) : 0;
                if (p < pattern.length() && (c == '?' || c == text.charAt(t))) {
                    p++;
                    t++;
                } else if (p < pattern.length() && c == '*') {
                    star = p++;
                    resume = t;
                } else if (star >= 0) {
                    p = star + 1;
                    t = ++resume;
                } else {
                    return false;
                }
            }
            while (p < pattern.length() && pattern.charAt(p) == '*') {
                p++;
            }
            return p == pattern.length();
        }
    }
}
