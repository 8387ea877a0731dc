/** The reference {@link dev.parallax.core.spi.Executor}; parallel executors live in smr-scheduler. */
package dev.parallax.core.exec;
