/**
 * Immutable, typed configuration with builders and documented defaults. Every value object here is
 * thread-safe; builders are not.
 */
package dev.parallax.core.config;
