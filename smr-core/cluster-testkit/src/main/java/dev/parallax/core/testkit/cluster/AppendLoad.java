package dev.parallax.core.testkit.cluster;

import dev.parallax.core.testkit.Await;

import dev.parallax.core.GroupSet;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.spi.CommandRouter;
import dev.parallax.core.client.RoutingInvoker;
import dev.parallax.core.client.SmrClient;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The append workload the protocols' cluster tests share (S-Paxos, Ring Paxos): client {@code c}
 * appends {@code tag + i + ","} to its own key {@code own<c>} and {@code c:tag + i + ","} to the
 * key {@code shared}; then every replica's {@link TextKv} must hold the same state.
 *
 * <p>Threads: the test thread; {@link #state} reads a map the replica's execution thread writes and
 * retries while it changes under it; {@link #awaitConverged} blocks up to 60 s.
 */
public final class AppendLoad {
    /** Commands {@link #restartResumesFromItsSnapshot} sends one at a time before it waits for a snapshot. */
    private static final int SNAPSHOT_TICKS = 8;

    private AppendLoad() {
    }

    /** Each client appends {@code count} numbers to its own key and to the shared key; returns the replies. */
    public static List<CompletableFuture<ByteBuffer>> load(List<SmrClient> clients, String tag, int count) {
        List<CompletableFuture<ByteBuffer>> replies = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            for (int c = 0; c < clients.size(); c++) {
                replies.add(clients.get(c).invoke(cmd("APPEND own" + c + " " + tag + i + ",")));
                replies.add(clients.get(c).invoke(cmd("APPEND shared " + c + ":" + tag + i + ",")));
            }
        }
        return replies;
    }

    /**
     * The routed form of {@link #load} (a multicast ordering, seed 003 ch. 5-6): invoker {@code c}
     * appends {@code tag i,} to {@code own<ids[c]>} and {@code ids[c]:tag i,} to {@code shared};
     * waits up to 60 s for every reply.
     */
    public static void loadRouted(List<CommandInvoker> invokers, int[] ids, String tag, int count) throws Exception {
        List<CompletableFuture<ByteBuffer>> replies = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            for (int c = 0; c < invokers.size(); c++) {
                replies.add(invokers.get(c).invoke(cmd("APPEND own" + ids[c] + " " + tag + i + ",")));
                replies.add(invokers.get(c).invoke(cmd("APPEND shared " + ids[c] + ":" + tag + i + ",")));
            }
        }
        for (CompletableFuture<ByteBuffer> r : replies) {
            r.get(60, TimeUnit.SECONDS);
        }
    }

    /**
     * The C-G of the append workload over {@code groups} groups: the key {@code shared} to every
     * group, any other key to its hash mod {@code groups} (the key is the command's second word).
     */
    public static CommandRouter byKey(int groups) {
        return command -> {
            String[] words = StandardCharsets.UTF_8.decode(command.duplicate()).toString().split(" ", 3);
            String key = words.length > 1 ? words[1] : "";
            return key.equals("shared") ? GroupSet.partition(groups) : GroupSet.of(Math.floorMod(key.hashCode(), groups));
        };
    }

    /** Invokers that route {@code c}'s clients of {@code replicas} by {@link #byKey}. */
    public static List<CommandInvoker> routed(LocalCluster c, int groups, int... replicas) {
        List<CommandInvoker> invokers = new ArrayList<>();
        for (int r : replicas) {
            invokers.add(new RoutingInvoker(c.clientOf(r), byKey(groups)));
        }
        return invokers;
    }

    /**
     * The restart scenario of the multicast orderings (Multi-Ring, and P-SMR per worker): routed
     * appends, until replica 2 has written a snapshot; replica 2 stops, the others go on, replica 2
     * restarts from its data directory and must resume exactly after its snapshot (no gap, no
     * duplicate) and catch up; it must have installed its own snapshot. {@code c} has a data
     * directory and snapshots at most every {@value #SNAPSHOT_TICKS} instances; {@code groups} is the
     * routing's group count.
     */
    public static void restartResumesFromItsSnapshot(LocalCluster c, int groups) throws Exception {
        List<CommandInvoker> all = routed(c, groups, 0, 1, 2);
        loadRouted(all, new int[] {0, 1, 2}, "x", 60);
        // The load above may be decided in as few batches as there are groups (a loaded machine
        // batches more): one command at a time, one batch each, makes a snapshot due on every
        // replica whatever the snapshot interval (CI failed once with no snapshot on replica 2).
        for (int i = 0; i < SNAPSHOT_TICKS; i++) {
            all.get(i % 3).invoke(cmd("APPEND tick " + i + ",")).get(60, TimeUnit.SECONDS);
        }
        awaitConverged(c);
        Await.until("replica 2 wrote a snapshot", Duration.ofSeconds(60),
                () -> c.replicas.get(2).meterRegistry().find("parallax.snapshots.taken").counter().count() > 0);
        c.stop(2);
        loadRouted(all.subList(0, 2), new int[] {0, 1}, "y", 60);
        c.restart(2);
        CommandInvoker again = routed(c, groups, 2).get(0);
        assertThat(TextKv.text(again.invoke(cmd("APPEND own2 z,")).get(60, TimeUnit.SECONDS)))
                .isEqualTo(expectedOwn("x", 60) + "z,");
        loadRouted(all.subList(0, 2), new int[] {0, 1}, "w", 20);
        awaitConverged(c);
        assertThat(c.machines.get(2).data.get("own0")).isEqualTo(expectedOwn("x", 60) + expectedOwn("y", 60)
                + expectedOwn("w", 20));
        assertThat(c.machines.get(2).data.get("shared").split(",")).as("no duplicate, no gap")
                .hasSize(3 * 60 + 2 * 60 + 2 * 20).doesNotHaveDuplicates();
        assertThat(c.replicas.get(2).meterRegistry().find("parallax.snapshots.installed").counter().count())
                .as("the restart installed its own snapshot").isPositive();
    }

    /** The machine's keys and values, sorted, as text; retried while execution changes the map. */
    public static String state(TextKv kv) {
        while (true) {
            try {
                return new TreeMap<>(kv.data).toString();
            } catch (ConcurrentModificationException e) {
                Thread.onSpinWait();
            }
        }
    }

    /** Waits (up to 60 s) until replicas 0, 1 and 2 hold the same state. */
    public static void awaitConverged(LocalCluster c) throws InterruptedException {
        try {
            Await.until("every replica holds the same state", Duration.ofSeconds(60), () -> {
                String s0 = state(c.machines.get(0));
                return s0.equals(state(c.machines.get(1))) && s0.equals(state(c.machines.get(2)));
            });
        } catch (AssertionError e) {
            StringBuilder d = new StringBuilder(e.getMessage());
            for (int r = 0; r < 3; r++) {
                d.append("\nreplica ").append(r).append(": ").append(abbreviate(state(c.machines.get(r))));
            }
            throw new AssertionError(d.toString(), e);
        }
    }

    /** The state's size and its last 400 characters, enough to see which writes one replica lacks. */
    private static String abbreviate(String state) {
        return state.length() + " chars: ..." + state.substring(Math.max(0, state.length() - 400));
    }

    /** What a client's own key holds after {@link #load} of {@code count} with {@code tag}. */
    public static String expectedOwn(String tag, int count) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < count; i++) {
            s.append(tag).append(i).append(',');
        }
        return s.toString();
    }
}
