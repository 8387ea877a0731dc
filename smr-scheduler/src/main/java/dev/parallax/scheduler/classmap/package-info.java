/**
 * Request classes and class-to-threads maps for early scheduling (seed 001 chapter 4): the
 * {@link dev.parallax.scheduler.classmap.ClassMap} with its builder, the validator of the five
 * mapping rules, and ready-made maps for the sharded and the read/write workloads.
 */
package dev.parallax.scheduler.classmap;
