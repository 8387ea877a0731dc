package dev.parallax.core.testkit.cluster;

import dev.parallax.core.client.SmrClient;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.replica.SafetyAlarmException;
import io.micrometer.core.instrument.FunctionCounter;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static dev.parallax.core.testkit.cluster.TextKv.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every protocol's safety-alarm test checks of a replica that heard two different decisions
 * for one instance (docs/operations.md, "Safety alarm"): it counts the alarm, logs one ERROR line
 * naming both origins, reports a {@link SafetyAlarmException}, reads unhealthy, closes its client
 * port, and the healthy majority goes on serving. The test injects the conflicting message (an
 * {@link InboundTap} hands it over); this class captures what the replica says and checks the rest.
 *
 * <p><b>Threads.</b> Called from the test's thread. {@link #inject} swaps {@code System.err} while it
 * runs (no other test may print concurrently in this JVM) and blocks until the replica stopped, at
 * most 10 s; the others block on client calls for at most 10 s each.
 */
public final class SafetyAlarmProbe {
    private static final long TIMEOUT_S = 10;

    private SafetyAlarmProbe() {
    }

    /** What the alarmed replica reported and printed. */
    public record Stop(Throwable why, String log) {
    }

    /**
     * Runs {@code inject} with {@code System.err} captured and waits until {@code replica} stopped
     * itself; the captured output is printed again afterwards, for the test report.
     */
    public static Stop inject(Replica replica, Runnable inject) throws Exception {
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            inject.run();
            Throwable why = replica.failStopped().get(TIMEOUT_S, TimeUnit.SECONDS);
            System.err.flush();
            return new Stop(why, captured.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(stderr);
            stderr.print(captured.toString(StandardCharsets.UTF_8));
        }
    }

    /**
     * Asserts that replica {@code victim} of {@code cluster} stopped on a safety alarm about instance 0
     * whose message and ERROR line name {@code origin} (e.g. {@code "member 2 (CatchUpReply"}): one
     * alarm counted, {@code Replica.failure()} the same exception, the healthy gauge at 0, the
     * client port closed.
     */
    public static void assertStoppedServing(LocalCluster cluster, int victim, Stop stop, String origin) {
        Replica r = cluster.replicas.get(victim);
        assertThat(stop.why()).isInstanceOf(SafetyAlarmException.class)
                .hasMessageContaining("two different decisions for instance 0").hasMessageContaining(origin);
        assertThat(((SafetyAlarmException) stop.why()).violation().instance()).isZero();
        assertThat(r.failure()).containsSame(stop.why());
        assertThat(alarms(r)).isEqualTo(1.0);
        assertThat(r.meterRegistry().get("parallax.replica.healthy").gauge().value())
                .as("replica %d's healthy gauge after the alarm", victim).isZero();
        assertThat(stop.log()).contains("ERROR").contains("SAFETY ALARM").contains(origin).contains("stops serving");
        assertThat(refusesConnections(cluster.clients.member(victim).port())).as("the victim's client port").isTrue();
    }

    /**
     * Asserts that the replicas other than {@code victim} raised no alarm and serve: a write after
     * the alarm, then reads of {@code k0} (written {@code "before"} by the test) and of that write.
     */
    public static void assertMajorityServes(LocalCluster cluster, SmrClient client, int victim) throws Exception {
        text(client.invoke(cmd("SET k1 after")).get(TIMEOUT_S, TimeUnit.SECONDS));
        assertThat(text(client.invoke(cmd("GET k0")).get(TIMEOUT_S, TimeUnit.SECONDS))).isEqualTo("before");
        assertThat(text(client.invoke(cmd("GET k1")).get(TIMEOUT_S, TimeUnit.SECONDS))).isEqualTo("after");
        for (int i = 0; i < cluster.replicas.size(); i++) {
            if (i != victim) {
                assertThat(alarms(cluster.replicas.get(i))).as("replica %d's alarms", i).isZero();
            }
        }
    }

    /** The replica's {@code parallax.safety.alarms}, summed over protocols. */
    public static double alarms(Replica r) {
        return sum(r, "parallax.safety.alarms");
    }

    /** The replica's {@code parallax.protocol.decided}, summed over protocols. */
    public static double decided(Replica r) {
        return sum(r, "parallax.protocol.decided");
    }

    private static double sum(Replica r, String name) {
        return r.meterRegistry().find(name).functionCounters().stream().mapToDouble(FunctionCounter::count).sum();
    }

    private static boolean refusesConnections(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            return false;
        } catch (IOException refused) {
            return true;
        }
    }
}
