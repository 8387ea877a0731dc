package dev.parallax.scheduler.ssmr;

import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;

/** The {@link ExecutionContext} of one command's execution; built by {@link SsmrDriver}. Not thread-safe. */
final class SsmrExecutionContext implements ExecutionContext {
    private final int partition;
    private final int partitions;
    private final GroupSet involved;
    private final GroupSet remoteReads;
    private final RemoteValues values;

    SsmrExecutionContext(int partition, int partitions, GroupSet involved, GroupSet remoteReads, RemoteValues values) {
        this.partition = partition;
        this.partitions = partitions;
        this.involved = involved;
        this.remoteReads = remoteReads;
        this.values = values;
    }

    @Override
    public int partition() {
        return partition;
    }

    @Override
    public int partitions() {
        return partitions;
    }

    @Override
    public GroupSet involved() {
        return involved;
    }

    @Override
    public ByteBuffer valuesOf(int p) {
        ByteBuffer v = remoteReads != null && remoteReads.contains(p) ? values.get(p) : null;
        if (v == null) {
            throw new IllegalArgumentException("no values of partition " + p + " (remoteReads named "
                    + remoteReads + ", involved " + involved + ")");
        }
        return v;
    }

    @Override
    public void require(GroupSet needed) {
        if ((needed.bits() & ~involved.bits()) != 0) {
            throw new WrongPartitionsException(GroupSet.ofBits(needed.bits() | involved.bits()));
        }
    }
}
