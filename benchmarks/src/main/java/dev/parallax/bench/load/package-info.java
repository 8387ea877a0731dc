/**
 * The closed-loop load generator behind {@code ./parallax bench}: connections × outstanding
 * commands, latency percentiles (HdrHistogram), a per-second timeline, CPU per process from
 * /proc, and JSON/CSV results.
 */
package dev.parallax.bench.load;
