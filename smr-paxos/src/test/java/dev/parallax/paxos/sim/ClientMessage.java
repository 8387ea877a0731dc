package dev.parallax.paxos.sim;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;

/** Messages between simulated clients and replicas. Immutable, deterministic toString. */
sealed interface ClientMessage {

    /** A client asks a replica to order and execute a command. */
    record Request(Command command) implements ClientMessage {
    }

    /** The result of a command, from the replica that took the request (or its reply cache). */
    record Reply(CommandId id, String output) implements ClientMessage {
    }

    /** The replica does not lead; {@code hint} is the leader it believes in. */
    record NotLeader(int hint) implements ClientMessage {
    }
}
