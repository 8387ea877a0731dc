package dev.parallax.core.multicast;

/**
 * Who keeps an idle stream level with busy ones, so that a subscriber merging them keeps
 * delivering. A strategy chosen once at build time; immutable.
 */
public enum SkipPolicy {
    /**
     * {@link StreamMulticast}'s own, demand-driven: the leader of each stream proposes skip values
     * while its stream is behind the busiest one (see {@code Sequencer}); an idle system decides
     * nothing. Needs {@link Routing#LEADER} and {@link Numbering#INSTANCE} (one skip value fills one
     * instance).
     */
    DEMAND,
    /**
     * None here: the streams skip by themselves (Multi-Ring Paxos: every ring's coordinator decides
     * SKIP(target) at rate λ, seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5, Alg. 1 l.40-46),
     * and deliver those skips as {@link StreamMulticast#skipValue(long)} values.
     */
    NONE
}
