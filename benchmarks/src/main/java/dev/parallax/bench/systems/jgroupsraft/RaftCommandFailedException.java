package dev.parallax.bench.systems.jgroupsraft;

/** A command the jgroups-raft front end could not commit (no leader, leader change, ...). Immutable. */
public final class RaftCommandFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message the server's description of the failure */
    public RaftCommandFailedException(String message) {
        super(message);
    }
}
