package dev.parallax.examples.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.util.SafeEncoder;

/**
 * End to end through a real RESP client: Jedis against a RespServer whose invoker executes on a
 * KvStateMachine on its own thread and completes futures out of order after random delays.
 */
class RespServerJedisTest {
    private InProcessInvoker invoker;
    private RespServer server;
    private Jedis jedis;

    @BeforeEach
    void start() throws Exception {
        invoker = new InProcessInvoker(new KvStateMachine(), 300, 42);
        server = new RespServer(RespServerConfig.of("127.0.0.1", 0).withIoThreads(2), invoker);
        server.start();
        jedis = connect();
    }

    @AfterEach
    void stop() {
        jedis.close();
        server.close();
        invoker.close();
    }

    private Jedis connect() {
        return new Jedis("127.0.0.1", server.port());
    }

    private static ProtocolCommand command(String name) {
        return () -> SafeEncoder.encode(name);
    }

    @Test
    void pingAndEcho() {
        assertThat(jedis.ping()).isEqualTo("PONG");
        assertThat(jedis.ping("hi")).isEqualTo("hi");
        assertThat(jedis.echo("e c h o")).isEqualTo("e c h o");
    }

    @Test
    void setGetDelExists() {
        assertThat(jedis.set("k", "v")).isEqualTo("OK");
        assertThat(jedis.get("k")).isEqualTo("v");
        assertThat(jedis.get("missing")).isNull();
        assertThat(jedis.exists("k", "k", "missing")).isEqualTo(2);
        assertThat(jedis.del("k", "missing")).isEqualTo(1);
        assertThat(jedis.exists("k")).isFalse();
    }

    @Test
    void setWithNxAndXxButNotExpiry() {
        assertThat(jedis.set("k", "1", SetParams.setParams().nx())).isEqualTo("OK");
        assertThat(jedis.set("k", "2", SetParams.setParams().nx())).isNull();
        assertThat(jedis.set("k", "3", SetParams.setParams().xx())).isEqualTo("OK");
        assertThatThrownBy(() -> jedis.set("k", "4", SetParams.setParams().ex(10)))
                .isInstanceOf(JedisDataException.class)
                .hasMessage("ERR syntax error: SET option 'EX' is not supported (only NX and XX are)");
        assertThat(jedis.get("k")).isEqualTo("3");
    }

    @Test
    void incrCountsAndRejectsNonIntegersLikeRedis() {
        assertThat(jedis.incr("n")).isEqualTo(1);
        assertThat(jedis.incr("n")).isEqualTo(2);
        jedis.set("s", "abc");
        assertThatThrownBy(() -> jedis.incr("s"))
                .isInstanceOf(JedisDataException.class)
                .hasMessage("ERR value is not an integer or out of range");
        assertThat(jedis.get("s")).isEqualTo("abc");
    }

    @Test
    void msetAndMget() {
        assertThat(jedis.mset("a", "1", "b", "2")).isEqualTo("OK");
        assertThat(jedis.mget("a", "x", "b")).containsExactly("1", null, "2");
    }

    @Test
    void keysAndValuesAreBinarySafe() {
        byte[] key = {0, '\r', '\n', (byte) 0xff};
        byte[] value = new byte[70_000];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) (i * 7);
        }
        assertThat(jedis.set(key, value)).isEqualTo("OK");
        assertThat(jedis.get(key)).isEqualTo(value);
        assertThat(jedis.get(new byte[] {0, '\r', '\n'})).isNull();
    }

    @Test
    void unknownCommandsAndWrongArityGetRedisErrors() {
        assertThatThrownBy(() -> jedis.sendCommand(command("XYZ"), "a", "b"))
                .isInstanceOf(JedisDataException.class)
                .hasMessage("ERR unknown command 'XYZ', with args beginning with: 'a' 'b' ");
        assertThatThrownBy(() -> jedis.sendCommand(command("GET"), new String[0]))
                .isInstanceOf(JedisDataException.class)
                .hasMessage("ERR wrong number of arguments for 'get' command");
        assertThat(jedis.ping()).isEqualTo("PONG");
    }

    @Test
    void connectionCommandsClientsSendOnConnect() {
        assertThat(jedis.select(0)).isEqualTo("OK");
        assertThat(jedis.clientSetname("tester")).isEqualTo("OK");
        assertThat(jedis.clientGetname()).isEqualTo("tester");
        assertThat(jedis.configGet("appendonly")).containsEntry("appendonly", "no");
        assertThat(jedis.info()).contains("redis_version:");
    }

    @Test
    void pipelinedRepliesComeBackInRequestOrder() {
        Pipeline p = jedis.pipelined();
        List<Response<String>> sets = new ArrayList<>();
        List<Response<String>> gets = new ArrayList<>();
        List<Response<Long>> incrs = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            switch (i % 3) {
                case 0 -> sets.add(p.set("k" + i, "v" + i));
                case 1 -> gets.add(p.get("k" + (i - 1)));
                default -> incrs.add(p.incr("counter"));
            }
        }
        p.sync();
        assertThat(sets).allSatisfy(r -> assertThat(r.get()).isEqualTo("OK"));
        for (int j = 0; j < gets.size(); j++) {
            assertThat(gets.get(j).get()).isEqualTo("v" + (3 * j));
        }
        for (int j = 0; j < incrs.size(); j++) {
            assertThat(incrs.get(j).get()).isEqualTo(j + 1);
        }
    }

    @Test
    void pipelineMixesLocalAndReplicatedCommandsAndErrorsInOrder() {
        Pipeline p = jedis.pipelined();
        Response<String> set = p.set("s", "text");
        Response<Object> ping = p.sendCommand(command("PING"), new String[0]);
        Response<Long> badIncr = p.incr("s");
        Response<Object> echo = p.sendCommand(command("ECHO"), "e");
        Response<String> get = p.get("s");
        p.sync();
        assertThat(set.get()).isEqualTo("OK");
        assertThat(SafeEncoder.encode((byte[]) ping.get())).isEqualTo("PONG");
        assertThatThrownBy(badIncr::get).isInstanceOf(JedisDataException.class)
                .hasMessage("ERR value is not an integer or out of range");
        assertThat(SafeEncoder.encode((byte[]) echo.get())).isEqualTo("e");
        assertThat(get.get()).isEqualTo("text");
    }

    @Test
    void concurrentClientsSeeEveryIncrement() throws Exception {
        int clients = 6;
        int perClient = 400;
        CountDownLatch go = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            Thread t = new Thread(() -> {
                try (Jedis client = connect()) {
                    go.await();
                    Pipeline p = client.pipelined();
                    for (int i = 0; i < perClient / 2; i++) {
                        p.incr("shared");
                    }
                    p.sync();
                    for (int i = 0; i < perClient / 2; i++) {
                        client.incr("shared");
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            t.start();
            threads.add(t);
        }
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertThat(failure.get()).isNull();
        assertThat(jedis.get("shared")).isEqualTo(Integer.toString(clients * perClient));
    }

    @Test
    void quitClosesTheConnection() {
        assertThat(SafeEncoder.encode((byte[]) jedis.sendCommand(command("QUIT"), new String[0]))).isEqualTo("OK");
        try (Jedis other = connect()) {
            assertThat(other.ping()).isEqualTo("PONG");
        }
    }
}
