package dev.parallax.core.replica;

import dev.parallax.core.spi.ReadIndex;
import dev.parallax.core.spi.ReadListener;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Queues;
import dev.parallax.core.stage.Stage;
import dev.parallax.core.wire.ClientWire;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The replica's read path: a client's {@link ClientWire#QUERY} runs on this replica's state, outside
 * the total order, once the ordering's {@link ReadIndex} named a position and this replica
 * delivered every decision below it (read-index, Raft thesis §6.4). The query then runs between two
 * deliveries ({@link ServiceManager#query}): linearizable, and on any replica, leader or not.
 *
 * <p>Outcomes, each counted in {@code parallax.queries{outcome=...}}: {@code served} (the
 * state machine's answer), {@code rejected} (it threw), {@code unsupported} (no read path in this
 * ordering, or a state machine that answers reads through the order: the client orders the query as
 * a command), {@code redirected} (no position now — no leader, leadership lost, the leader silent,
 * or too many queries waiting: the client asks again, elsewhere or later).
 *
 * The time from a query's read to its answer from the state is recorded in
 * {@code parallax.client.command.latency{kind=query}} (one clock reading per query and per pass).
 *
 * <p>Threads: {@link #submit} on ClientIO's event loops; the {@link ReadListener} answers on the
 * ordering's protocol thread (never blocking: a bounded queue); {@link #doWork} on this stage's
 * thread, which runs the queries and writes their replies (Netty hands the writes to each
 * connection's loop). At most {@code maxWaiting} queries are in flight at once; beyond that they
 * are redirected at once.
 */
final class QueryPath implements Stage, ReadListener {
    private static final Logger LOG = LoggerFactory.getLogger(QueryPath.class);
    /** Queries a replica holds in flight at most; beyond, they are redirected at once. */
    static final int MAX_IN_FLIGHT = 16_384;

    /** A query waiting for its position, then for the delivery to reach it. */
    private static final class Waiting {
        final Channel channel;
        final long query;
        final ByteBuffer payload;
        /** When the query was read (the clock's nanoseconds). */
        final long start;
        long position = -1;

        Waiting(Channel channel, long query, ByteBuffer payload, long start) {
            this.channel = channel;
            this.query = query;
            this.payload = payload;
            this.start = start;
        }
    }

    private final String name;
    private final ReadIndex reads;
    private final ServiceManager service;
    private final int maxWaiting;
    private final ConcurrentHashMap<Long, Waiting> waiting = new ConcurrentHashMap<>();
    private final AtomicLong nextRead = new AtomicLong();
    /** Queries taken and not yet answered (each gets exactly one reply). */
    private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
    /** Reads whose position came, from the protocol thread to this stage. */
    private final BoundedQueue<Waiting> positioned;
    /** Wakes this stage when the delivery moved while reads wait for it (the delivery thread offers). */
    private final BoundedQueue<Boolean> delivered = Queues.mpsc(2);
    /** Whether positioned reads wait for the delivery (read by the delivery thread). */
    private volatile boolean waitingForDelivery;
    /** This stage's: positioned reads by position. */
    private final PriorityQueue<Waiting> byPosition = new PriorityQueue<>((a, b) -> Long.compare(a.position, b.position));
    /** This stage's: the queries due in this pass, and each connection's answers of this pass. */
    private final List<Waiting> due = new ArrayList<>();
    private final java.util.Map<Channel, ByteBuf> outgoing = new java.util.LinkedHashMap<>();
    private final Counter served;
    private final Counter rejected;
    private final Counter unsupported;
    private final Counter redirected;
    /** Answered queries, from read to answer ({@code parallax.client.command.latency{kind=query}}). */
    private final io.micrometer.core.instrument.Timer latency;
    private final dev.parallax.core.time.Clock clock;

    /**
     * @param reads      the ordering's read path, or empty (every query is answered UNSUPPORTED)
     * @param maxWaiting queries that may wait at once
     */
    QueryPath(int replica, Optional<ReadIndex> reads, ServiceManager service, int maxWaiting, MeterRegistry registry,
              dev.parallax.core.time.Clock clock) {
        this.name = "queries-" + replica;
        this.clock = clock;
        this.latency = ClientLatency.timer(registry, replica, "query");
        this.reads = reads.orElse(null);
        this.service = service;
        this.maxWaiting = maxWaiting;
        this.positioned = Queues.mpsc(maxWaiting);
        String id = Integer.toString(replica);
        this.served = counter(registry, id, "served", "queries answered from this replica's state");
        this.rejected = counter(registry, id, "rejected", "queries the state machine threw on");
        this.unsupported = counter(registry, id, "unsupported", "queries refused for the client to order them");
        this.redirected = counter(registry, id, "redirected", "queries given no position (no leader, too many waiting): "
                + "the client asks again");
        if (this.reads != null) {
            this.reads.answers(this);
            this.reads.onDelivered(() -> {
                if (waitingForDelivery) {
                    delivered.offer(Boolean.TRUE); // full: a wakeup is pending anyway
                }
            });
        }
    }

    private static Counter counter(MeterRegistry registry, String replica, String outcome, String description) {
        return Counter.builder("parallax.queries").description(description).tag("replica", replica).tag("outcome", outcome)
                .register(registry);
    }

    /** A client's query arrived on {@code channel} (ClientIO's event loop). */
    void submit(Channel channel, long query, ByteBuffer payload) {
        if (reads == null) {
            inFlight.incrementAndGet();
            reply(channel, query, Outcome.UNSUPPORTED, null, -1);
            return;
        }
        if (inFlight.incrementAndGet() > maxWaiting) {
            reply(channel, query, Outcome.REDIRECT, null, -1);
            return;
        }
        long read = nextRead.getAndIncrement();
        waiting.put(read, new Waiting(channel, query, payload, clock.nanoTime()));
        if (!reads.request(read)) {
            Waiting w = waiting.remove(read);
            if (w != null) {
                reply(channel, query, Outcome.REDIRECT, null, -1);
            }
        }
    }

    @Override
    public void ready(long read, long position) {
        Waiting w = waiting.remove(read);
        if (w == null) {
            return;
        }
        w.position = position;
        if (!positioned.offer(w)) {
            reply(w.channel, w.query, Outcome.REDIRECT, null, -1);
        }
    }

    @Override
    public void failed(long read, int leaderHint) {
        Waiting w = waiting.remove(read);
        if (w != null) {
            reply(w.channel, w.query, leaderHint == UNSUPPORTED ? Outcome.UNSUPPORTED : Outcome.REDIRECT, null, leaderHint);
        }
    }

    @Override
    public int doWork() {
        delivered.drain(signal -> { }, 2);
        int work = positioned.drain(byPosition::add, 4096);
        waitingForDelivery = !byPosition.isEmpty();
        long below = reads == null ? 0 : reads.deliveredBelow();
        Waiting w;
        while ((w = byPosition.peek()) != null && w.position <= below) {
            byPosition.poll();
            if (w.channel.isActive()) {
                due.add(w);
            } else {
                inFlight.decrementAndGet();
            }
        }
        if (!byPosition.isEmpty()) {
            waitingForDelivery = true; // then look again: a delivery in between found the flag down
            if (reads.deliveredBelow() >= byPosition.peek().position) {
                work++;
            }
        } else {
            waitingForDelivery = false;
        }
        if (due.isEmpty()) {
            return work;
        }
        work += due.size();
        runDue();
        return work;
    }

    /** Runs the queries due under one lock of the service, and writes each connection's answers at once. */
    private void runDue() {
        List<ByteBuffer> payloads = new ArrayList<>(due.size());
        for (Waiting w : due) {
            payloads.add(w.payload);
        }
        int[] next = {0};
        try {
            service.query(payloads, answer -> {
                Waiting w = due.get(next[0]++);
                if (answer instanceof ByteBuffer b) {
                    batch(w, Outcome.OK, b, -1, null);
                } else if (answer instanceof UnsupportedOperationException) {
                    batch(w, Outcome.UNSUPPORTED, null, -1, null);
                } else {
                    RuntimeException e = (RuntimeException) answer;
                    LOG.debug("query {} rejected: {}", w.query, e.toString());
                    batch(w, Outcome.REJECTED, null, -1, e.getMessage() == null ? e.toString() : e.getMessage());
                }
            });
        } catch (UnsupportedOperationException e) {
            due.subList(next[0], due.size()).forEach(w -> batch(w, Outcome.UNSUPPORTED, null, -1, null));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            due.subList(next[0], due.size()).forEach(w -> batch(w, Outcome.REDIRECT, null, -1, null));
        } catch (IllegalStateException e) {
            due.subList(next[0], due.size()).forEach(w -> batch(w, Outcome.REDIRECT, null, -1, null)); // stopped executing
        }
        long now = clock.nanoTime();
        for (Waiting w : due) {
            latency.record(now - w.start, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
        due.clear();
        for (java.util.Map.Entry<Channel, ByteBuf> e : outgoing.entrySet()) {
            e.getKey().writeAndFlush(e.getValue(), e.getKey().voidPromise());
        }
        outgoing.clear();
    }

    /** Encodes {@code w}'s answer into its connection's buffer of this pass. */
    private void batch(Waiting w, Outcome outcome, ByteBuffer answer, int leader, String message) {
        ByteBuf out = outgoing.computeIfAbsent(w.channel, ch -> ch.alloc().ioBuffer());
        encode(out, w.query, outcome, answer, leader, message);
    }

    private enum Outcome { OK, REJECTED, REDIRECT, UNSUPPORTED }

    private void reply(Channel channel, long query, Outcome outcome, ByteBuffer answer, int leader) {
        reply(channel, query, outcome, answer, leader, null);
    }

    private void reply(Channel channel, long query, Outcome outcome, ByteBuffer answer, int leader, String message) {
        ByteBuf out = channel.alloc().ioBuffer();
        encode(out, query, outcome, answer, leader, message);
        channel.writeAndFlush(out, channel.voidPromise());
    }

    /** Writes one answer and counts it (each query gets exactly one). */
    private void encode(ByteBuf out, long query, Outcome outcome, ByteBuffer answer, int leader, String message) {
        inFlight.decrementAndGet();
        switch (outcome) {
            case OK -> {
                served.increment();
                ClientWire.writeQueryOk(out, query, answer);
            }
            case REJECTED -> {
                rejected.increment();
                ClientWire.writeQueryRejected(out, query, message);
            }
            case REDIRECT -> {
                redirected.increment();
                ClientWire.writeQueryRedirect(out, query, leader < 0 ? -1 : leader);
            }
            case UNSUPPORTED -> {
                unsupported.increment();
                ClientWire.writeQueryUnsupported(out, query);
            }
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<? extends BoundedQueue<?>> inputQueues() {
        return List.of(positioned, delivered);
    }
}
