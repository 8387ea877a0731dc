package dev.parallax.core.testkit.smr;

import dev.parallax.core.spi.ReadListener;
import dev.parallax.core.testkit.NodeContext;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A simulated replica's read path, as the production replica's query path: a client's
 * {@link ClientMessage.Query} gets a read number ({@link #ask}), which the replica hands to its core
 * ({@code ProtocolCore.onReadIndex}); the core's answer comes through {@link #listener()}: a position
 * (the query is answered once the replica delivered every decision below it, {@link #delivered}) or
 * a failure (the client is told to ask again, {@link ClientMessage.QueryRetry}).
 *
 * <p>Read numbers start at the incarnation's start time (virtual nanoseconds, times a thousand), so a
 * restarted replica never takes a leader's late answer meant for a read of its previous run, as the
 * production stage's random first number ensures.
 *
 * <p>Owned by the simulation thread.
 */
public final class SimReads {
    private record Asked(int client, long query, String command) {
    }

    private final NodeContext<Object> ctx;
    private final SimService service;
    private final Map<Long, Asked> asked = new HashMap<>();
    private final TreeMap<Long, List<Asked>> byPosition = new TreeMap<>();
    private long delivered;
    private long nextRead;
    private long answered;

    public SimReads(NodeContext<Object> ctx, SimService service) {
        this.ctx = ctx;
        this.service = service;
        this.nextRead = ctx.now() * 1000;
    }

    /** Query {@code q} from {@code client} arrived: its read number, for the core. */
    public long ask(int client, ClientMessage.Query q) {
        long read = nextRead++;
        asked.put(read, new Asked(client, q.id(), q.command()));
        return read;
    }

    /** Answers query {@code q} from the state as it is now: the mutation of a replica that does not confirm. */
    public void answerNow(int client, ClientMessage.Query q) {
        answer(new Asked(client, q.id(), q.command()));
    }

    /** Where the core's answers go (its driver's {@code EffectApplier.reads}). */
    public ReadListener listener() {
        return new ReadListener() {
            @Override
            public void ready(long read, long position) {
                Asked a = asked.remove(read);
                if (a == null) {
                    return;
                }
                if (position <= delivered) {
                    answer(a);
                } else {
                    byPosition.computeIfAbsent(position, p -> new ArrayList<>()).add(a);
                }
            }

            @Override
            public void failed(long read, int leaderHint) {
                Asked a = asked.remove(read);
                if (a != null) {
                    ctx.send(a.client(), new ClientMessage.QueryRetry(a.query()));
                }
            }
        };
    }

    /** The replica delivered every decision below {@code below}: answer the queries waiting for it. */
    public void delivered(long below) {
        delivered = Math.max(delivered, below);
        while (!byPosition.isEmpty() && byPosition.firstKey() <= delivered) {
            byPosition.pollFirstEntry().getValue().forEach(this::answer);
        }
    }

    /** Queries answered so far by this incarnation. */
    public long answered() {
        return answered;
    }

    private void answer(Asked a) {
        String out = service.query(a.command());
        if (out == null) {
            throw new AssertionError("query " + a.command() + " is not read-only");
        }
        answered++;
        ctx.send(a.client(), new ClientMessage.QueryReply(a.query(), out));
    }
}
