package dev.parallax.examples.kv;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each command's RESP reply, over a state machine executing synchronously. */
class RespCommandsTest {
    private final KvStateMachine sm = new KvStateMachine();
    private final SynchronousInvoker invoker = new SynchronousInvoker(sm);
    private final HandlerFixture fixture = new HandlerFixture(invoker, 64);

    @AfterEach
    void close() {
        fixture.close();
    }

    private String reply(String inline) {
        fixture.send(inline + "\r\n");
        return fixture.output();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", quoteCharacter = '`', value = {
        "PING => +PONG",
        "ping hello => $5\\r\\nhello",
        "PING a b => -ERR wrong number of arguments for 'ping' command",
        "`ECHO \"a b\"` => $3\\r\\na b",
        "echo => -ERR wrong number of arguments for 'echo' command",
        "COMMAND => *0",
        "COMMAND DOCS => *0",
        "COMMAND COUNT => :19",
        "CONFIG GET save => *2\\r\\n$4\\r\\nsave\\r\\n$0\\r\\n",
        "CONFIG GET appendonly => *2\\r\\n$10\\r\\nappendonly\\r\\n$2\\r\\nno",
        "config get APPENDONLY save => *4\\r\\n$4\\r\\nsave\\r\\n$0\\r\\n\\r\\n$10\\r\\nappendonly\\r\\n$2\\r\\nno",
        "CONFIG GET *s* => *4\\r\\n$4\\r\\nsave\\r\\n$0\\r\\n\\r\\n$9\\r\\ndatabases\\r\\n$1\\r\\n1",
        "CONFIG GET maxmemory => *0",
        "CONFIG GET => -ERR wrong number of arguments for 'config|get' command",
        "CONFIG => -ERR wrong number of arguments for 'config' command",
        "CONFIG SET save x => -ERR unknown subcommand 'SET' for 'config' (this server supports CONFIG GET)",
        "CLIENT SETINFO LIB-NAME jedis => +OK",
        "CLIENT SETINFO LIB-NAME => -ERR wrong number of arguments for 'client|setinfo' command",
        "CLIENT GETNAME => $-1",
        "CLIENT ID => :7",
        "`CLIENT SETNAME \"a b\"` => -ERR Client names cannot contain spaces, newlines or special characters.",
        "CLIENT KILL x => -ERR unknown subcommand 'KILL' for 'client' (this server supports CLIENT SETNAME, SETINFO, GETNAME, ID)",
        "SELECT 0 => +OK",
        "SELECT 1 => -ERR DB index is out of range",
        "SELECT x => -ERR value is not an integer or out of range",
        "HELLO 3 => -NOPROTO unsupported protocol version",
        "HELLO x => -ERR Protocol version is not an integer or out of range",
        "HELLO 2 AUTH a b => -ERR syntax error",
        "QUIT => +OK",
        "GET => -ERR wrong number of arguments for 'get' command",
        "GET a b => -ERR wrong number of arguments for 'get' command",
        "SET k => -ERR wrong number of arguments for 'set' command",
        "MSET a => -ERR wrong number of arguments for 'mset' command",
        "MSET a 1 b => -ERR wrong number of arguments for 'mset' command",
        "DEL => -ERR wrong number of arguments for 'del' command",
        "DBSIZE => :0",
        "STRLEN => -ERR wrong number of arguments for 'strlen' command",
        "STRLEN a b => -ERR wrong number of arguments for 'strlen' command",
        "STRLEN absent => :0",
        "dbsize => :0",
        "DBSIZE x => -ERR wrong number of arguments for 'dbsize' command",
        "FLUSHALL => +OK",
        "flushall async => +OK",
        "FLUSHALL SYNC => +OK",
        "FLUSHALL now => -ERR syntax error",
        "FLUSHALL ASYNC x => -ERR syntax error",
        "SET k v EX 10 => -ERR syntax error: SET option 'EX' is not supported (only NX and XX are)",
        "SET k v NX XX => -ERR syntax error",
        "SET k v FOO => -ERR syntax error",
        "FOO => `-ERR unknown command 'FOO', with args beginning with: `",
        "`foo bar \"b z\"` => `-ERR unknown command 'foo', with args beginning with: 'bar' 'b z' `",
    })
    void replies(String request, String expected) {
        assertThat(reply(request)).isEqualTo(expected.replace("\\r\\n", "\r\n") + "\r\n");
    }

    @Test
    void unknownCommandErrorCutsLongArgumentsAt128Characters() {
        String reply = reply("nope " + "x".repeat(300) + " y");
        assertThat(reply).isEqualTo("-ERR unknown command 'nope', with args beginning with: '" + "x".repeat(128) + "' \r\n");
    }

    @Test
    void clientSetnameIsReturnedByGetname() {
        assertThat(reply("CLIENT SETNAME app-1")).isEqualTo("+OK\r\n");
        assertThat(reply("CLIENT GETNAME")).isEqualTo("$5\r\napp-1\r\n");
    }

    @Test
    void helloTwoDescribesTheServer() {
        assertThat(reply("HELLO 2 SETNAME me")).startsWith("*14\r\n$6\r\nserver\r\n$11\r\nparallax-kv\r\n")
                .contains("$5\r\nproto\r\n:2\r\n");
        assertThat(reply("CLIENT GETNAME")).isEqualTo("$2\r\nme\r\n");
    }

    @Test
    void infoIsABulkStringWithTheServerSection() {
        assertThat(reply("INFO")).startsWith("$").contains("# Server\r\nredis_version:7.0.0\r\n");
    }

    @Test
    void dataCommandsRoundTrip() {
        assertThat(reply("SET k v")).isEqualTo("+OK\r\n");
        assertThat(reply("set k v2 xx")).isEqualTo("+OK\r\n");
        assertThat(reply("SET k v3 NX")).isEqualTo("$-1\r\n");
        assertThat(reply("SET new v NX")).isEqualTo("+OK\r\n");
        assertThat(reply("SET absent v XX")).isEqualTo("$-1\r\n");
        assertThat(reply("GET k")).isEqualTo("$2\r\nv2\r\n");
        assertThat(reply("INCR n")).isEqualTo(":1\r\n");
        assertThat(reply("INCR k")).isEqualTo("-ERR value is not an integer or out of range\r\n");
        assertThat(reply("MSET a 1 b 2")).isEqualTo("+OK\r\n");
        assertThat(reply("MGET a nope b")).isEqualTo("*3\r\n$1\r\n1\r\n$-1\r\n$1\r\n2\r\n");
        assertThat(reply("EXISTS a b a nope")).isEqualTo(":3\r\n");
        assertThat(reply("DEL a b nope")).isEqualTo(":2\r\n");
        assertThat(reply("GET a")).isEqualTo("$-1\r\n");
    }

    @Test
    void strlenIsTheValuesLengthInBytesAndGoesAsAQuery() {
        int queries = invoker.queries();
        assertThat(reply("SET k hello")).isEqualTo("+OK\r\n");
        assertThat(reply("strlen k")).isEqualTo(":5\r\n");
        assertThat(reply("SET k \"\"")).isEqualTo("+OK\r\n");
        assertThat(reply("STRLEN k")).as("an empty value").isEqualTo(":0\r\n");
        assertThat(reply("SET n 12")).isEqualTo("+OK\r\n");
        assertThat(reply("INCR n")).isEqualTo(":13\r\n");
        assertThat(reply("STRLEN n")).as("an integer's decimal text").isEqualTo(":2\r\n");
        assertThat(reply("STRLEN nope")).isEqualTo(":0\r\n");
        assertThat(invoker.queries() - queries).as("every STRLEN answered by the state machine's query").isEqualTo(4);
    }

    @Test
    void dbsizeCountsTheKeysAndFlushallRemovesThemAll() {
        assertThat(reply("DBSIZE")).isEqualTo(":0\r\n");
        assertThat(reply("MSET a 1 b 2 c 3")).isEqualTo("+OK\r\n");
        assertThat(reply("DEL c")).isEqualTo(":1\r\n");
        assertThat(reply("DBSIZE")).isEqualTo(":2\r\n");
        assertThat(reply("FLUSHALL")).isEqualTo("+OK\r\n");
        assertThat(reply("DBSIZE")).isEqualTo(":0\r\n");
        assertThat(reply("MGET a b")).isEqualTo("*2\r\n$-1\r\n$-1\r\n");
        assertThat(reply("SET a again")).isEqualTo("+OK\r\n");
        assertThat(reply("DBSIZE")).isEqualTo(":1\r\n");
    }

    @Test
    void globMatchesStarAndQuestionMark() {
        assertThat(RespCommands.Glob.matches("*", "save")).isTrue();
        assertThat(RespCommands.Glob.matches("s?ve", "save")).isTrue();
        assertThat(RespCommands.Glob.matches("*ve", "save")).isTrue();
        assertThat(RespCommands.Glob.matches("s*v*e", "save")).isTrue();
        assertThat(RespCommands.Glob.matches("s*x", "save")).isFalse();
        assertThat(RespCommands.Glob.matches("sav", "save")).isFalse();
        assertThat(RespCommands.Glob.matches("*".repeat(10_000) + "x", "appendonly")).isFalse();
    }
}
