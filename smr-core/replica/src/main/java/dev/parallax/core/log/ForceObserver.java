package dev.parallax.core.log;

/**
 * Told how long each force of a {@link ChronicleDurableLog} took: the {@code fdatasync} of the
 * segments written since the previous force, and of the directory when a segment was created. A
 * replica records it in its {@code parallax.log.fsync} timer. Forces at open are not reported.
 *
 * <p>Called on the log's writer thread right after a successful force; it must be quick and must
 * not block (a timer's {@code record} is fine).
 */
@FunctionalInterface
public interface ForceObserver {
    /** Observes nothing. */
    ForceObserver NONE = nanos -> { };

    /** A force of the log's device just succeeded after {@code nanos} nanoseconds (by the log's clock). */
    void forced(long nanos);
}
