/** {@link dev.parallax.core.spi.DurableLog} implementations. */
package dev.parallax.core.log;
