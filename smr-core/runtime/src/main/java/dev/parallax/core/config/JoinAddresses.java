package dev.parallax.core.config;

/**
 * The rule for a joining replica's address ({@link ReplicaConfig#joinAddress()}): a member of the
 * cluster file has none (it listens at its file address), a replica outside the members has one,
 * that is no member's, and from whose port a client port (+ 1000) can be derived.
 *
 * <p>Stateless and thread-safe; never blocks.
 */
final class JoinAddresses {
    private JoinAddresses() {
    }

    /**
     * @param join replica {@code id}'s join address, or {@code null}
     * @throws IllegalArgumentException naming what is wrong
     */
    static void check(int id, ClusterMembers members, Member join) {
        if (id < members.size()) {
            if (join != null) {
                throw new IllegalArgumentException("replica " + id + " is a member of " + members
                        + " and listens at " + members.member(id) + "; a join address is only for a replica "
                        + "joining the group with an id outside the members (ids 0.." + (members.size() - 1) + ")");
            }
            return;
        }
        if (join == null) {
            throw new IllegalArgumentException("id " + id + " is not a member of " + members + ": a replica joining "
                    + "the group needs the address it listens on (join address, --join host:port)");
        }
        if (join.port() + 1000 > 65535) {
            throw new IllegalArgumentException("join address " + join.host() + ":" + join.port()
                    + ": cannot derive a client port (port + 1000) from it");
        }
        for (Member m : members.members()) {
            if (m.host().equals(join.host()) && m.port() == join.port()) {
                throw new IllegalArgumentException("join address " + join.host() + ":" + join.port()
                        + " of replica " + id + " is member " + m.id() + "'s address");
            }
        }
    }
}
