package dev.parallax.examples.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code admin status} table: lag against the stream's leader with one stream, against the
 * partition's most advanced replica with several merged streams, and an unreachable replica's row.
 */
class AdminStatusReportTest {

    private static Map<String, String> status(long executed, String... streams) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("ordering", "multi-ring");
        s.put("leader", "-1");
        s.put("executed", Long.toString(executed));
        s.put("membership", AdminRoutes.UNSUPPORTED);
        for (int i = 0; i + 2 < streams.length; i += 3) {
            s.put("stream." + streams[i] + ".role", streams[i + 1]);
            s.put("stream." + streams[i] + ".view", "7");
            s.put("stream." + streams[i] + ".decided", streams[i + 2]);
        }
        return s;
    }

    @Test
    @DisplayName("merged streams: one row per stream, lag against the partition's most advanced replica, marked *")
    void mergedStreamsLagAgainstThePartition() {
        List<String> lines = AdminStatusReport.lines(List.of(
                new AdminStatusReport.Answer(0, 0, status(50, "ring-0", "coordinator", "30", "ring-global", "acceptor", "20"), null),
                new AdminStatusReport.Answer(1, 0, status(42, "ring-0", "acceptor", "29", "ring-global", "coordinator", "20"), null),
                new AdminStatusReport.Answer(2, 1, status(10, "ring-1", "coordinator", "9", "ring-global", "learner", "20"), null),
                new AdminStatusReport.Answer(3, 1, null, "replica 3 unreachable at 127.0.0.1:1 (refused)")), true);
        assertThat(lines.get(0)).startsWith("replica  partition  reachable  stream");
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("1\\s+0\\s+yes\\s+ring-0\\s+acceptor\\s+7\\s+-1\\s+29\\s+42\\s+8\\*\\s+-"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("2\\s+1\\s+yes\\s+ring-1\\s+coordinator\\s+7\\s+-1\\s+9\\s+10\\s+0\\*\\s+-"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("3\\s+1\\s+no(\\s+-)+"));
        assertThat(lines).contains("replica 3 unreachable at 127.0.0.1:1 (refused)");
        assertThat(lines).contains("membership changes not supported by ordering multi-ring");
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("* lag against the most advanced replica"));
        assertThat(lines).hasSize(1 + 6 + 1 + 1 + 2);
    }

    @Test
    @DisplayName("one ring stream: its decided instances include skipped idle ones, so lag is against the most advanced replica")
    void aRingStreamLagsAgainstTheMostAdvancedReplica() {
        List<String> lines = AdminStatusReport.lines(List.of(
                new AdminStatusReport.Answer(0, 0, status(40, "uring", "coordinator", "1804"), null),
                new AdminStatusReport.Answer(1, 0, status(37, "uring", "acceptor", "1804"), null)), false);
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("1\\s+yes\\s+uring\\s+acceptor\\s+7\\s+-1\\s+1804\\s+37\\s+3\\*\\s+-"));
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("* lag against the most advanced replica"));
    }
}
