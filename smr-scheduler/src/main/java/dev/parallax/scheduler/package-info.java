/**
 * Executors that run decided commands on a {@link dev.parallax.core.StateMachine}: sequential,
 * late scheduling (a CBASE dependency graph) and early scheduling over a class-to-threads map with
 * barrier, busy-wait and four work-stealing synchronization modes (seed 001). Start from
 * {@link dev.parallax.scheduler.Execution}.
 */
package dev.parallax.scheduler;
