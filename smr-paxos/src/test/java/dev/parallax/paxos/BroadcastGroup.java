package dev.parallax.paxos;

import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.testkit.Await;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Broadcasts of one group, started by id on an in-process network, with what each delivered (as
 * strings), for the membership tests of Multi-Paxos and S-Paxos: replicas start, propose, stop
 * (a replaced one), and the test waits for deliveries. Not thread-safe: the test thread drives it
 * (deliveries are recorded on the broadcasts' delivery threads into synchronized lists).
 *
 * @param <B> the broadcast type
 */
public final class BroadcastGroup<B extends AtomicBroadcast> implements AutoCloseable {
    public static final Duration WAIT = Duration.ofSeconds(30);
    private final IntFunction<B> build;
    private final List<B> replicas = new ArrayList<>();
    private final List<List<String>> delivered = new ArrayList<>();

    /** @param build a not-yet-started broadcast for replica {@code id} */
    public BroadcastGroup(IntFunction<B> build) {
        this.build = build;
    }

    /** Builds and starts replica {@code id}. */
    public B start(int id) {
        B b = build.apply(id);
        List<String> mine = Collections.synchronizedList(new ArrayList<>());
        while (delivered.size() <= id) {
            delivered.add(null);
            replicas.add(null);
        }
        delivered.set(id, mine);
        replicas.set(id, b);
        b.start((seq, value) -> mine.add(StandardCharsets.UTF_8.decode(value).toString()));
        return b;
    }

    /** Replica {@code id}, or null if stopped. */
    public B replica(int id) {
        return replicas.get(id);
    }

    /** Closes replica {@code id} for good. */
    public void stop(int id) {
        replicas.get(id).close();
        replicas.set(id, null);
    }

    /** What replica {@code id} delivered so far, a copy. */
    public List<String> delivered(int id) {
        return List.copyOf(delivered.get(id));
    }

    /** Proposes {@code v} at {@code at} until it is taken. */
    public void propose(B at, String v) throws InterruptedException {
        Await.until("proposal " + v + " taken", WAIT, () -> at.propose(ByteBuffer.wrap(v.getBytes(StandardCharsets.UTF_8))));
    }

    /** Waits until replica {@code id} delivered exactly {@code expected}. */
    public void await(int id, List<String> expected, String what) throws InterruptedException {
        Await.untilEquals(WAIT, () -> delivered(id), expected, () -> what);
    }

    /** The future's value within 30 s. */
    public static String get(CompletableFuture<String> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        replicas.forEach(r -> {
            if (r != null) {
                r.close();
            }
        });
    }
}
