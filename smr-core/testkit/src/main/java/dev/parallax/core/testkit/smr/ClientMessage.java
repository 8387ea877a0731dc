package dev.parallax.core.testkit.smr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;

/** Messages between simulated clients and replicas. Immutable, deterministic toString. */
public sealed interface ClientMessage {

    /** A client asks a replica to order and execute a command. */
    record Request(Command command) implements ClientMessage {
    }

    /** The result of a command, from the replica that took the request (or its reply cache). */
    record Reply(CommandId id, String output) implements ClientMessage {
    }

    /**
     * Command {@code id} was decided but not executed because its session expects {@code next}
     * first (a gap: an earlier command of the client was lost or is still on its way); the client
     * resends from {@code next} in order, as the production replica's {@code RETRY_FROM} asks.
     */
    record RetryFrom(CommandId id, long next) implements ClientMessage {
    }

    /** The replica does not lead; {@code hint} is the leader it believes in. */
    record NotLeader(int hint) implements ClientMessage {
    }

    /** A client asks a replica to answer the read-only {@code command} outside the order (read-index). */
    record Query(long id, String command) implements ClientMessage {
    }

    /** The answer to query {@code id}. */
    record QueryReply(long id, String output) implements ClientMessage {
    }

    /** The replica has no position for query {@code id} now (no leader confirmed one): ask again. */
    record QueryRetry(long id) implements ClientMessage {
    }
}
