package dev.parallax.scheduler.ssmr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.GroupSet;

import java.util.Objects;

/**
 * What {@link SsmrCore} asks its driver to do, in the order given (etcd-raft style: the core has
 * no I/O; the driver performs each effect and feeds results back as inputs). Immutable records.
 */
public sealed interface SsmrEffect {
    /** Send {@code message} to every replica of {@code partition} ({@link PartitionLinks#send}). */
    record Send(int partition, PartitionMessage message) implements SsmrEffect {
        public Send {
            Objects.requireNonNull(message, "message");
        }
    }

    /**
     * Compute the command's reads: call {@link PartitionedStateMachine#localReads} and
     * {@link PartitionedStateMachine#remoteReads}, then feed {@link SsmrCore#readsComputed} (or
     * {@link SsmrCore#readsFailed} if either threw a RuntimeException).
     */
    record ComputeReads(Command command) implements SsmrEffect {
        public ComputeReads {
            Objects.requireNonNull(command, "command");
        }
    }

    /**
     * Execute the command with {@code values} (exactly the partitions of {@code remoteReads} that are
     * involved), then feed {@link SsmrCore#executed}.
     *
     * @param remoteReads what remoteReads returned, or null
     */
    record Execute(Command command, GroupSet remoteReads, RemoteValues values) implements SsmrEffect {
        public Execute {
            Objects.requireNonNull(command, "command");
            Objects.requireNonNull(values, "values");
        }
    }

    /**
     * Record durably that {@code command} finished having read {@code values}
     * ({@link RemoteValuesLog#append}); always immediately followed by its {@link Reply}.
     */
    record LogValues(CommandId command, RemoteValues values) implements SsmrEffect {
        public LogValues {
            Objects.requireNonNull(command, "command");
            Objects.requireNonNull(values, "values");
        }
    }

    /** The command finished: hand its result to the client side. */
    record Reply(Command command, CommandResult result) implements SsmrEffect {
        public Reply {
            Objects.requireNonNull(command, "command");
            Objects.requireNonNull(result, "result");
        }
    }

    /** The command is not for this partition (or is a duplicate delivery): it needs no reply. */
    record Skip(Command command) implements SsmrEffect {
        public Skip {
            Objects.requireNonNull(command, "command");
        }
    }
}
