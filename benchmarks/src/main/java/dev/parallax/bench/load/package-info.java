/**
 * The closed-loop load generator behind {@code ./parallax bench}: connections × outstanding
 * commands pre-encoded per connection, latency percentiles (HdrHistogram), a per-second timeline,
 * CPU per process from /proc, sweeps over the outstanding count with their stop rule, and JSON/CSV
 * results.
 */
package dev.parallax.bench.load;
