package dev.parallax.scheduler.ssmr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.History;
import dev.parallax.core.check.LinearizabilityChecker;
import dev.parallax.core.check.Verdict;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Why the signal goes out when a command STARTS, not when it is delivered (seed 004 (S-SMR) §IV-A
 * execution atomicity vs Eyrie's §V-A "as soon as each command C is delivered, StateMachine sends
 * signal(C)"). Found by {@link SsmrSimulationTest} (seed 10805 of 20 000 with early signals), replayed
 * here as a script over one replica per partition, three partitions, x0 x1 x2 all 0:
 *
 * <ol>
 *   <li>C' = multiWrite(x0=4, x1=5) to {0,1} and C = multiWrite(x1=7, x2=8) to {1,2} are invoked;
 *       partition 1 delivers C' then C (C waits behind C', which waits for partition 0); partition 2
 *       delivers C. With early signals, partition 1 signals C at delivery, so partition 2 finishes C
 *       and C returns.</li>
 *   <li>Then W = write(x0=9) is invoked; partition 0 orders W before C' (a Multi-Ring merge may: W and
 *       C have no common partition, the order stays acyclic) and W returns.</li>
 *   <li>Partition 0 delivers C'; everything finishes; readAll(x0, x1) returns [4, 7].</li>
 * </ol>
 * So W &lt; C' (x0 ends 4) and C' &lt; C (x1 ends 7), but C returned before W was invoked: not
 * linearizable. Signalling at the start (default), C cannot return before partition 1 started it,
 * i.e. after C' finished there, i.e. after partition 0 started C' — after W: linearizable.
 */
class EarlySignalScepticTest {
    private final Map<CommandId, Long> returned = new HashMap<>();
    private final Map<CommandId, CommandResult> results = new HashMap<>();
    private final ArrayDeque<Object[]> inflight = new ArrayDeque<>();
    private SsmrDriver[] drivers;
    private long clock;

    private void cluster(boolean earlySignals) {
        drivers = new SsmrDriver[3];
        for (int p = 0; p < 3; p++) {
            drivers[p] = new SsmrDriver(SsmrConfig.of(p, 3).withEarlySignals(earlySignals),
                    new SsmrStateMachine(new Registers(3)), new InMemoryRemoteValuesLog(),
                    (q, m) -> inflight.add(new Object[]{q, m}), new SsmrDriver.Outcomes() {
                        @Override
                        public void replied(Command command, CommandResult result) {
                            if (returned.putIfAbsent(command.id(), clock) == null) {
                                results.put(command.id(), result);
                            }
                        }

                        @Override
                        public void skipped(Command command) {
                        }
                    });
        }
    }

    private void deliver(int p, Command c) {
        clock++;
        drivers[p].deliver(c);
        while (!inflight.isEmpty()) {
            Object[] m = inflight.poll();
            drivers[(int) m[0]].receive((PartitionMessage) m[1]);
        }
    }

    private History<RegistersModel.Op, List<Long>> script(boolean earlySignals) {
        cluster(earlySignals);
        RegistersModel.Op cPrimeOp = new RegistersModel.Op(Registers.MULTI_WRITE, new int[]{0, 1}, new long[]{4, 5});
        RegistersModel.Op cOp = new RegistersModel.Op(Registers.MULTI_WRITE, new int[]{1, 2}, new long[]{7, 8});
        RegistersModel.Op wOp = new RegistersModel.Op(Registers.WRITE, new int[]{0}, new long[]{9});
        RegistersModel.Op rOp = new RegistersModel.Op(Registers.READ_ALL, new int[]{0, 1}, new long[0]);
        Command cPrime = Registers.command(3, 1, cPrimeOp.encode());
        Command c = Registers.command(1, 1, cOp.encode());
        Command w = Registers.command(2, 1, wOp.encode());
        Command r = Registers.command(2, 2, rOp.encode());

        long cInvoked = clock;
        deliver(1, cPrime);
        deliver(1, c);
        deliver(2, c);
        long wInvoked = ++clock; // after whatever returned so far
        deliver(0, w);
        deliver(0, cPrime);
        long rInvoked = ++clock;
        deliver(0, r);
        deliver(1, r);

        History.Builder<RegistersModel.Op, List<Long>> h = History.builder();
        h.ok(3, cPrimeOp, List.of(), cInvoked, returned.get(cPrime.id()));
        h.ok(1, cOp, List.of(), cInvoked, returned.get(c.id()));
        h.ok(2, wOp, List.of(), wInvoked, returned.get(w.id()));
        h.ok(2, rOp, Registers.decodeLongs(results.get(r.id()).reply()), rInvoked, returned.get(r.id()));
        assertThat(returned.get(c.id()) < wInvoked).as("C returned before W was invoked").isEqualTo(earlySignals);
        return h.build();
    }

    @Test
    void earlySignalsAtDeliveryAreNotLinearizableOverAPartialOrderMulticast() {
        CheckResult result = LinearizabilityChecker.check(new RegistersModel(3), script(true));
        assertThat(result.verdict()).as(result.report()).isEqualTo(Verdict.NOT_LINEARIZABLE);
    }

    @Test
    void signalsAtTheStartKeepTheSameScriptLinearizable() {
        CheckResult result = LinearizabilityChecker.check(new RegistersModel(3), script(false));
        assertThat(result.verdict()).as(result.report()).isEqualTo(Verdict.LINEARIZABLE);
    }
}
