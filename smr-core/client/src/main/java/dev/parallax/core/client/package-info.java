/** The client side of a replicated service: invoking commands and the errors a caller can see. */
package dev.parallax.core.client;
