/** Parallax core: public API of the replication library. */
package dev.parallax.core;
