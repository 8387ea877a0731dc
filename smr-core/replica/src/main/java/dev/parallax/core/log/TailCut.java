package dev.parallax.core.log;

import java.util.List;

/**
 * Where the valid prefix of a log ends although more bytes follow: the first damaged,
 * unfinished or out-of-sequence excerpt found at open.
 *
 * @param cycle             segment holding the damaged excerpt
 * @param offset            byte offset of its header in the segment file
 * @param index             the index the next record would have had: the log ends here
 * @param reason            what is wrong
 * @param segmentKeepsRecords whether the segment holds valid records before the damage (it is then
 *                          ended at {@code offset}; otherwise it is deleted)
 * @param laterSegments     segments after it, all discarded
 * @param validRecordsAfter records after the cut whose checksums are valid (unforced writes that
 *                          reached the disk out of order), discarded too
 */
record TailCut(int cycle, long offset, long index, String reason, boolean segmentKeepsRecords,
               List<Integer> laterSegments, long validRecordsAfter) {
}
