package dev.parallax.core.client;

/**
 * The command was sent but no replica answered it within the invoke timeout: it may or may not
 * have executed, and it may still execute later. The client does not forget it: the command keeps
 * its sequence number and stays in flight (resent after a fail-over or a gap report, executed at
 * most once thanks to the replicas' sessions) until a replica answers it or the session ends, so
 * the client's later commands cross no gap. Only the caller's future gives up. A subtype of
 * {@link ClusterUnavailableException} so that code catching that still sees the failure; to learn
 * the outcome, read the state back (or make the command idempotent and invoke it again).
 *
 * <p>Immutable; thrown (as the cause of a failed future) on the client's event loop.
 */
public class OutcomeUnknownException extends ClusterUnavailableException {
    public OutcomeUnknownException(String message) {
        super(message);
    }
}
