/**
 * The service-provider interfaces every ordering protocol, executor, transport and log plugs into.
 * Each interface states its thread and blocking contract; implementations are checked by the
 * shared contract suites in the smr-core test-jar.
 */
package dev.parallax.core.spi;
