/**
 * Starting and stopping server JVMs on this machine: what the command line's multi-process
 * commands and the benchmarks share. Not part of the library.
 */
package dev.parallax.examples.process;
