/**
 * Time sources. Code that measures elapsed time takes a {@link dev.parallax.core.time.Clock}
 * instead of calling {@link System#nanoTime()}, so that the simulator can run it on virtual time.
 */
package dev.parallax.core.time;
