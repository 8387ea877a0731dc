package dev.parallax.scheduler.psmr;

/**
 * Which worker of a multi-worker command's destination set W executes it. The real rule is
 * {@link PsmrWorkers#executorOf(long)} (e = min W, seed 003 ch. 6, Alg. 1 l.16); the choice is
 * pluggable package-privately only so that tests can run a mutant and show that a checker written
 * against the specification catches it. Must be deterministic and return a member of W.
 */
@FunctionalInterface
interface ExecutorChoice {

    /** The executing worker among the one-bits of {@code workerMask} (at least two bits set). */
    int executorOf(long workerMask);
}
