package dev.parallax.core.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LargeHistoryTest {

    private static final int OPERATIONS = 10_000;
    private static final int CLIENTS = 10;
    private static final int KEYS = 100;

    @Test
    void tenThousandOperationKvHistoryIsLinearizable() {
        History<KvOp, String> history = SimulatedKvHistories.generate(42, OPERATIONS, CLIENTS, KEYS, 0.002);

        CheckResult result = LinearizabilityChecker.check(new KvModel(), history);

        assertThat(result.verdict()).as("%s", result).isEqualTo(Verdict.LINEARIZABLE);
        assertThat(result.partitions()).isEqualTo(KEYS);
    }

    @Test
    void singleKeyHistoryWithTimeoutsIsLinearizable() {
        History<KvOp, String> history = SimulatedKvHistories.generate(11, 3_000, 5, 1, 0.01);

        CheckResult result = LinearizabilityChecker.check(new KvModel(), history);

        assertThat(result.verdict()).as("%s", result).isEqualTo(Verdict.LINEARIZABLE);
        assertThat(result.partitions()).isEqualTo(1);
        assertThat(history.operations()).filteredOn(Operation::outcomeUnknown).hasSizeGreaterThan(10);
    }

    @Test
    void oneCorruptedReadInTenThousandOperationsIsFoundOnItsKey() {
        History<KvOp, String> history = SimulatedKvHistories.generate(7, OPERATIONS, CLIENTS, KEYS, 0.002);
        List<Operation<KvOp, String>> ops = new ArrayList<>(history.operations());
        int victim = OPERATIONS / 2;
        while (!(ops.get(victim).input() instanceof KvOp.Get) || ops.get(victim).outcomeUnknown()) {
            victim++;
        }
        Operation<KvOp, String> read = ops.get(victim);
        ops.set(victim, Operation.completed(read.clientId(), read.input(), "never-written",
                read.invokeNanos(), read.returnNanos()));

        CheckResult result = LinearizabilityChecker.check(new KvModel(), History.of(ops));

        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.partition()).contains("key=" + read.input().key());
        assertThat(result.report()).contains("get(" + read.input().key() + ") -> never-written");
    }

    @Test
    void corruptedSingleKeyHistoryWithManyTimeoutsIsRejected() {
        // With this many open timeouts the first slice of the plain WGL order runs out, so the
        // verdict comes from the restarts that alternate the two search orders.
        History<KvOp, String> history = SimulatedKvHistories.generate(11, 600, 5, 1, 0.04);
        List<Operation<KvOp, String>> ops = new ArrayList<>(history.operations());
        int victim = 400;
        while (!(ops.get(victim).input() instanceof KvOp.Get) || ops.get(victim).outcomeUnknown()) {
            victim++;
        }
        Operation<KvOp, String> read = ops.get(victim);
        ops.set(victim, Operation.completed(read.clientId(), read.input(), "never-written",
                read.invokeNanos(), read.returnNanos()));

        CheckResult result = LinearizabilityChecker.check(new KvModel(), History.of(ops), CheckBudget.ofSteps(10_000_000));

        assertThat(result.verdict()).as("%s", result).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.report()).contains("get(k0) -> never-written");
    }
}
