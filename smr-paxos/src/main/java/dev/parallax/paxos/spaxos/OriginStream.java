package dev.parallax.paxos.spaxos;

/**
 * One origin's batches of one incarnation: the unit of numbering, acks and stability (seed 002
 * (S-Paxos) §IV-C). Immutable; ordered by (origin, incarnation).
 */
record OriginStream(int origin, long incarnation) implements Comparable<OriginStream> {

    static OriginStream of(BatchId id) {
        return new OriginStream(id.origin(), id.incarnation());
    }

    BatchId id(long sn) {
        return new BatchId(origin, incarnation, sn);
    }

    @Override
    public int compareTo(OriginStream o) {
        int c = Integer.compare(origin, o.origin);
        return c != 0 ? c : Long.compare(incarnation, o.incarnation);
    }
}
