/**
 * Snapshots of the replicated state (state machine and client sessions) on disk: written
 * atomically (temporary file, fsync, rename, fsync of the directory) with a checksum, so a crash
 * leaves either the old or the new snapshot, never a torn one.
 */
package dev.parallax.core.snapshot;
