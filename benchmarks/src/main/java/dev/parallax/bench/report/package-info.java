/**
 * Reports of bench runs: the comparison table of {@code ./parallax bench --compare} (best
 * throughput, throughput at an equal p99, CPU per command, ratios of Parallax to each system) as
 * Markdown, and PNG charts (timelines, latency-versus-throughput curves) drawn headless with XChart.
 */
package dev.parallax.bench.report;
