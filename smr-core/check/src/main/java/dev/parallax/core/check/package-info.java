/**
 * Linearizability checking of recorded client histories.
 *
 * <p>{@link dev.parallax.core.check.HistoryRecorder} records what clients invoked and observed,
 * {@link dev.parallax.core.check.LinearizabilityChecker} decides whether the resulting
 * {@link dev.parallax.core.check.History} is linearizable with respect to a sequential
 * {@link dev.parallax.core.check.Model}, and {@link dev.parallax.core.check.CheckResult} explains a
 * violation. The search is the Wing–Gong algorithm with Lowe's memoization of (linearized set,
 * state) pairs (G. Lowe, "Testing for linearizability", 2017) and P-compositionality (Horn and
 * Kroening, "Faster linearizability checking via P-compositionality", 2015), the scheme Porcupine
 * implements. Built-in models: {@link dev.parallax.core.check.RegisterModel},
 * {@link dev.parallax.core.check.KvModel} and {@link dev.parallax.core.check.CounterModel}.
 */
package dev.parallax.core.check;
