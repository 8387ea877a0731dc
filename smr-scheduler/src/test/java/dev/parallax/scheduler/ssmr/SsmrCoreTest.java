package dev.parallax.scheduler.ssmr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.GroupSet;
import dev.parallax.core.WrongPartitions;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One test per rule of {@link SsmrCore} (seed 004 (S-SMR) §IV Alg. 1, §IV-C, §V-A), driving the pure
 * core by hand: partition 0 of 2 (or 3).
 */
class SsmrCoreTest {
    private static final GroupSet BOTH = GroupSet.of(0, 1);
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final SsmrCore core = new SsmrCore(SsmrConfig.of(0, 2));

    private static Command cmd(long seq, GroupSet dests) {
        return Command.of(7, dests, seq, new byte[]{(byte) seq});
    }

    private static ByteBuffer bytes(long x) {
        return ByteBuffer.allocate(8).putLong(x).flip();
    }

    private static boolean hasReply(List<SsmrEffect> effects) {
        return effects.stream().anyMatch(e -> e instanceof SsmrEffect.Reply);
    }

    private static List<SsmrEffect> sends(List<SsmrEffect> effects) {
        return effects.stream().filter(e -> e instanceof SsmrEffect.Send).toList();
    }

    @Test
    void commandsNotForThisPartitionAreSkippedAndCounted() {
        Command other = cmd(1, GroupSet.of(1));
        assertThat(core.delivered(other)).containsExactly(new SsmrEffect.Skip(other));
        assertThat(core.counters().skipped()).isEqualTo(1);
        assertThat(core.idle()).isTrue();
    }

    @Test
    void theSignalGoesOutWhenTheCommandStartsAsItsValues() {
        // Alg. 1 l.11 in a handler that runs one command at a time: the signal says "C started here"
        // (execution atomicity, §IV-A); §IV-C: the values sent at the start count as the signal.
        SsmrCore c3 = new SsmrCore(SsmrConfig.of(0, 3));
        Command c = cmd(1, GroupSet.of(0, 1, 2));
        assertThat(c3.delivered(c)).containsExactly(new SsmrEffect.ComputeReads(c));
        PartitionMessage.Values values = new PartitionMessage.Values(c.id(), 0, EMPTY);
        List<SsmrEffect> effects = c3.readsComputed(c.id(), EMPTY, null);
        assertThat(effects).hasSize(3);
        assertThat(effects.subList(0, 2)).containsExactly(new SsmrEffect.Send(1, values), new SsmrEffect.Send(2, values));
        assertThat(effects.get(2)).isInstanceOf(SsmrEffect.Execute.class);
    }

    @Test
    void aQueuedCommandSendsNothingUntilItStarts() {
        // signalling a command that waits behind a blocked head would let the other partitions
        // finish it before this one executed it (see EarlySignalScepticTest)
        Command first = cmd(1, BOTH);
        Command second = cmd(2, BOTH);
        core.delivered(first);
        assertThat(core.delivered(second)).isEmpty();
        assertThat(core.received(new PartitionMessage.Request(second.id(), 1))).isEmpty();
    }

    @Test
    void earlySignalsAtDeliveryOnlyWhenConfigured() {
        // Eyrie's optimization (§V-A), UNSAFE over Multi-Ring: kept only for the sceptic test
        SsmrCore eager = new SsmrCore(SsmrConfig.of(0, 2).withEarlySignals(true));
        Command first = cmd(1, BOTH);
        Command second = cmd(2, BOTH);
        eager.delivered(first);
        assertThat(eager.delivered(second)).containsExactly(new SsmrEffect.Send(1, new PartitionMessage.Signal(second.id(), 0)));
    }

    @Test
    void earlySignalIsBufferedAndCountsWhenTheCommandArrives() {
        // Alg. 1 §IV-B: "s must buffer signals and check if there are signals buffered already".
        Command c = cmd(1, BOTH);
        assertThat(core.received(new PartitionMessage.Signal(c.id(), 1))).isEmpty();
        assertThat(core.counters().earlyBuffered()).isEqualTo(1);
        assertThat(core.counters().earlyCommands()).isEqualTo(1);
        core.delivered(c);
        assertThat(core.counters().earlyCommands()).isZero();
        core.readsComputed(c.id(), EMPTY, null);
        assertThat(hasReply(core.executed(c.id(), CommandResult.ok(EMPTY)))).isTrue();
    }

    @Test
    void valuesCountAsTheSendersSignal() {
        // §IV-C second optimization: a partition that sent values need not also signal.
        Command c = cmd(1, BOTH);
        core.delivered(c);
        core.readsComputed(c.id(), EMPTY, null);
        assertThat(hasReply(core.executed(c.id(), CommandResult.ok(EMPTY)))).isFalse();
        List<SsmrEffect> effects = core.received(new PartitionMessage.Values(c.id(), 1, bytes(5)));
        assertThat(effects).hasSize(2);
        assertThat(effects.get(0)).isInstanceOf(SsmrEffect.LogValues.class);
        assertThat(effects.get(1)).isEqualTo(new SsmrEffect.Reply(c, CommandResult.ok(EMPTY)));
    }

    @Test
    void nextCommandDoesNotStartBeforeTheHeadHasEverySignal() {
        // Alg. 1 l.20 (execution atomicity): C finishes only with a signal from every other partition;
        // the next command waits for that (Fig. 1 (b)).
        Command c = cmd(1, BOTH);
        Command next = cmd(2, GroupSet.of(0));
        core.delivered(c);
        core.delivered(next);
        core.readsComputed(c.id(), EMPTY, null);
        List<SsmrEffect> executed = core.executed(c.id(), CommandResult.ok(EMPTY));
        assertThat(executed).isEmpty();
        assertThat(core.head()).isEqualTo(c);
        List<SsmrEffect> effects = core.received(new PartitionMessage.Signal(c.id(), 1));
        assertThat(effects).containsExactly(
                new SsmrEffect.LogValues(c.id(), RemoteValues.NONE),
                new SsmrEffect.Reply(c, CommandResult.ok(EMPTY)),
                new SsmrEffect.ComputeReads(next));
    }

    @Test
    void localValuesGoToEveryOtherInvolvedPartitionEvenWhenEmpty() {
        Command c = cmd(1, BOTH);
        core.delivered(c);
        List<SsmrEffect> effects = core.readsComputed(c.id(), EMPTY, null);
        assertThat(effects).hasSize(2);
        assertThat(effects.get(0)).isEqualTo(new SsmrEffect.Send(1, new PartitionMessage.Values(c.id(), 0, EMPTY)));
        assertThat(effects.get(1)).isInstanceOf(SsmrEffect.Execute.class);
    }

    @Test
    void remoteReadsAreAwaitedAndASignalDoesNotReplaceValues() {
        // Alg. 1 l.16-17: wait until v is in rcvd_variables(C).
        Command c = cmd(1, BOTH);
        core.delivered(c);
        assertThat(core.readsComputed(c.id(), bytes(1), GroupSet.of(1)))
                .noneMatch(e -> e instanceof SsmrEffect.Execute);
        assertThat(core.received(new PartitionMessage.Signal(c.id(), 1))).isEmpty();
        List<SsmrEffect> effects = core.received(new PartitionMessage.Values(c.id(), 1, bytes(42)));
        assertThat(effects).containsExactly(
                new SsmrEffect.Execute(c, GroupSet.of(1), RemoteValues.of(Map.of(1, bytes(42)))));
        // values (and the earlier signal) satisfy the signal rule: finishes on execution
        assertThat(hasReply(core.executed(c.id(), CommandResult.ok(EMPTY)))).isTrue();
    }

    @Test
    void duplicateSignalsAndValuesAreIgnored() {
        Command c = cmd(1, BOTH);
        core.received(new PartitionMessage.Values(c.id(), 1, bytes(1)));
        core.received(new PartitionMessage.Values(c.id(), 1, bytes(2)));
        core.received(new PartitionMessage.Signal(c.id(), 1));
        core.delivered(c);
        List<SsmrEffect> effects = core.readsComputed(c.id(), EMPTY, GroupSet.of(1));
        assertThat(effects).contains(new SsmrEffect.Execute(c, GroupSet.of(1), RemoteValues.of(Map.of(1, bytes(1)))));
        core.received(new PartitionMessage.Values(c.id(), 1, bytes(3)));
        assertThat(core.counters().duplicates()).isEqualTo(3);
    }

    @Test
    void messagesForFinishedCommandsAreDroppedAsLate() {
        Command c = cmd(5, BOTH);
        core.delivered(c);
        core.received(new PartitionMessage.Signal(c.id(), 1));
        core.readsComputed(c.id(), EMPTY, null);
        assertThat(hasReply(core.executed(c.id(), CommandResult.ok(EMPTY)))).isTrue();
        assertThat(core.received(new PartitionMessage.Values(c.id(), 1, bytes(1)))).isEmpty();
        // an older command of the same client stream counts as finished too
        assertThat(core.received(new PartitionMessage.Signal(cmd(3, BOTH).id(), 1))).isEmpty();
        assertThat(core.counters().late()).isEqualTo(2);
        assertThat(core.counters().earlyCommands()).isZero();
    }

    @Test
    void foreignMessagesAreDropped() {
        CommandId notOurs = cmd(1, GroupSet.of(1, 2)).id();
        CommandId notSenders = cmd(2, GroupSet.of(0, 2)).id();
        SsmrCore c3 = new SsmrCore(SsmrConfig.of(0, 3));
        c3.received(new PartitionMessage.Signal(notOurs, 1));
        c3.received(new PartitionMessage.Signal(notSenders, 1));
        c3.received(new PartitionMessage.Signal(cmd(3, BOTH).id(), 0));
        assertThat(c3.counters().foreign()).isEqualTo(3);
        assertThat(c3.counters().earlyCommands()).isZero();
    }

    @Test
    void earlyBufferIsBoundedByCountAndBytesAndAgesOut() {
        SsmrCore small = new SsmrCore(SsmrConfig.of(0, 2).withEarlyBounds(2, 200, 1_000));
        small.received(new PartitionMessage.Signal(cmd(1, BOTH).id(), 1));
        small.received(new PartitionMessage.Signal(cmd(2, BOTH).id(), 1));
        small.received(new PartitionMessage.Signal(cmd(3, BOTH).id(), 1));
        assertThat(small.counters().earlyRefused()).isEqualTo(1);
        assertThat(small.counters().earlyCommands()).isEqualTo(2);
        // bytes: 2 × 64 overhead already charged; 100 more bytes would exceed 200
        small.received(new PartitionMessage.Values(cmd(1, BOTH).id(), 1, ByteBuffer.allocate(100)));
        assertThat(small.counters().earlyRefused()).isEqualTo(2);
        small.received(new PartitionMessage.Values(cmd(1, BOTH).id(), 1, ByteBuffer.allocate(50)));
        assertThat(small.counters().earlyBytes()).isEqualTo(2 * 64 + 50);
        small.tick(999);
        assertThat(small.counters().earlyCommands()).isEqualTo(2);
        small.tick(1_000);
        assertThat(small.counters().earlyExpired()).isEqualTo(2);
        assertThat(small.counters().earlyCommands()).isZero();
        assertThat(small.counters().earlyBytes()).isZero();
    }

    @Test
    void aHeadWaitingTooLongRequestsWhatItMissesAgainAndAgain() {
        // §V-A: retransmission; only the partitions still missing are asked.
        SsmrCore c3 = new SsmrCore(SsmrConfig.of(0, 3).withResend(16, 16, 100));
        Command c = cmd(1, GroupSet.of(0, 1, 2));
        c3.delivered(c);
        c3.received(new PartitionMessage.Signal(c.id(), 2));
        c3.readsComputed(c.id(), EMPTY, null);
        c3.executed(c.id(), CommandResult.ok(EMPTY));
        assertThat(c3.tick(99)).isEmpty();
        assertThat(c3.tick(100)).containsExactly(new SsmrEffect.Send(1, new PartitionMessage.Request(c.id(), 0)));
        assertThat(c3.tick(150)).isEmpty();
        assertThat(c3.tick(200)).hasSize(1);
        assertThat(c3.counters().requestsSent()).isEqualTo(2);
    }

    @Test
    void requestsAreAnsweredFromPendingCommandsAndTheResendCache() {
        Command c = cmd(1, BOTH);
        PartitionMessage.Request ask = new PartitionMessage.Request(c.id(), 1);
        assertThat(core.received(ask)).isEmpty(); // not delivered: the answer goes out at delivery
        Command blocker = cmd(0, GroupSet.of(0));
        core.delivered(blocker);
        core.delivered(c);
        assertThat(core.received(ask)).isEmpty(); // delivered but not started: nothing yet
        core.readsComputed(blocker.id(), EMPTY, null);
        core.executed(blocker.id(), CommandResult.ok(EMPTY));
        core.readsComputed(c.id(), bytes(9), null);
        PartitionMessage.Values mine = new PartitionMessage.Values(c.id(), 0, bytes(9));
        assertThat(core.received(ask)).containsExactly(new SsmrEffect.Send(1, mine));
        core.received(new PartitionMessage.Signal(c.id(), 1));
        assertThat(hasReply(core.executed(c.id(), CommandResult.ok(EMPTY)))).isTrue();
        assertThat(core.received(ask)).containsExactly(new SsmrEffect.Send(1, mine)); // from the cache
        assertThat(core.counters().requestsAnswered()).isEqualTo(2);
    }

    /** Runs {@code c} to its finish on {@code core}: local values {@code seq}, then partition {@code from}'s values. */
    private static void finish(SsmrCore core, Command c, int... from) {
        core.delivered(c);
        core.readsComputed(c.id(), bytes(c.id().sequence()), null);
        for (int q : from) {
            core.received(new PartitionMessage.Values(c.id(), q, EMPTY));
        }
        assertThat(hasReply(core.executed(c.id(), CommandResult.ok(EMPTY)))).isTrue();
    }

    @Test
    void aRequestForAFinishedCommandAlsoSendsTheAskerTheNextFinishedCommandsItTakesPartIn() {
        // catch-up (the paper is silent): the asker is behind, and would wait a resend interval for
        // each later command it missed; the answer carries the cached messages of the next ones that
        // involve it, in finish order, and none of those of other partitions or of earlier commands
        SsmrCore c3 = new SsmrCore(SsmrConfig.of(0, 3));
        Command before = cmd(1, GroupSet.of(0, 1));
        Command asked = cmd(2, GroupSet.of(0, 1));
        Command notForAsker = cmd(3, GroupSet.of(0, 2));
        Command next = cmd(4, GroupSet.of(0, 1, 2));
        Command local = cmd(5, GroupSet.of(0));
        Command last = cmd(6, GroupSet.of(0, 1));
        finish(c3, before, 1);
        finish(c3, asked, 1);
        finish(c3, notForAsker, 2);
        finish(c3, next, 1, 2);
        finish(c3, local);
        finish(c3, last, 1);
        List<SsmrEffect> answer = c3.received(new PartitionMessage.Request(asked.id(), 1));
        assertThat(answer).containsExactly(
                new SsmrEffect.Send(1, new PartitionMessage.Values(asked.id(), 0, bytes(2))),
                new SsmrEffect.Send(1, new PartitionMessage.Values(next.id(), 0, bytes(4))),
                new SsmrEffect.Send(1, new PartitionMessage.Values(last.id(), 0, bytes(6))));
        assertThat(c3.counters().requestsAnswered()).isEqualTo(1);
        assertThat(c3.counters().pushedAhead()).isEqualTo(2);
    }

    @Test
    void aFloodOfNewSingleClientsLeavesTheFinishedMultiPartitionCommandsRemembered() {
        // rule 6 and 8: client ids are the clients' choice; single-partition commands never get a
        // message from another partition, so they must not push multi-partition ones out of the
        // finished window or the resend cache (the asker would then get no answer at all)
        SsmrCore small = new SsmrCore(SsmrConfig.of(0, 2).withResend(4, 4, 100));
        Command multi = cmd(1, BOTH);
        finish(small, multi, 1);
        for (long client = 100; client < 120; client++) {
            Command single = Command.of(client, GroupSet.of(0), 1, new byte[]{1});
            small.delivered(single);
            small.readsComputed(single.id(), EMPTY, null);
            assertThat(hasReply(small.executed(single.id(), CommandResult.ok(EMPTY)))).isTrue();
        }
        assertThat(small.received(new PartitionMessage.Request(multi.id(), 1))).as("answered from the cache")
                .containsExactly(new SsmrEffect.Send(1, new PartitionMessage.Values(multi.id(), 0, bytes(1))));
        small.received(new PartitionMessage.Values(multi.id(), 1, EMPTY));
        assertThat(small.counters().late()).as("a resent value of the finished command is late, not early").isEqualTo(1);
        assertThat(small.counters().earlyCommands()).isZero();
    }

    @Test
    void thePushAheadIsBoundedInCommands() {
        SsmrCore c = new SsmrCore(SsmrConfig.of(0, 2));
        int n = SsmrConfig.RESEND_PUSH_AHEAD + 10;
        for (int i = 1; i <= n; i++) {
            finish(c, cmd(i, BOTH), 1);
        }
        List<SsmrEffect> answer = c.received(new PartitionMessage.Request(cmd(1, BOTH).id(), 1));
        assertThat(answer).hasSize(1 + SsmrConfig.RESEND_PUSH_AHEAD);
        assertThat(answer.get(answer.size() - 1)).isEqualTo(new SsmrEffect.Send(1,
                new PartitionMessage.Values(cmd(1 + SsmrConfig.RESEND_PUSH_AHEAD, BOTH).id(), 0,
                        bytes(1 + SsmrConfig.RESEND_PUSH_AHEAD))));
    }

    @Test
    void thePushAheadIsBoundedInBytes() {
        int max = 64;
        SsmrCore c = new SsmrCore(SsmrConfig.of(0, 2).withLimits(SsmrConfig.DEFAULT_MAX_QUEUED, max));
        for (int i = 1; i <= 20; i++) {
            finish(c, cmd(i, BOTH), 1); // 8 bytes of values each
        }
        List<SsmrEffect> answer = c.received(new PartitionMessage.Request(cmd(1, BOTH).id(), 1));
        assertThat(answer).hasSize(1 + max / 8);
    }

    @Test
    void pushedMessagesLetABehindReplicaRunItsMissedCommandsWithoutWaiting() {
        // partition 1's replica missed c1..c3 (down); partition 0 finished them. Its head c1 asks
        // after the resend interval; the answer and the push-ahead complete c1..c3 without more asks.
        SsmrCore ahead = new SsmrCore(SsmrConfig.of(0, 2));
        SsmrCore behind = new SsmrCore(SsmrConfig.of(1, 2));
        List<Command> missed = List.of(cmd(1, BOTH), cmd(2, BOTH), cmd(3, BOTH));
        for (Command c : missed) {
            finish(ahead, c, 1);
        }
        for (Command c : missed) {
            behind.delivered(c);
        }
        behind.readsComputed(missed.get(0).id(), EMPTY, GroupSet.of(0));
        List<SsmrEffect> ask = behind.tick(SsmrConfig.DEFAULT_RESEND_AFTER_NANOS);
        assertThat(ask).containsExactly(new SsmrEffect.Send(0, new PartitionMessage.Request(missed.get(0).id(), 1)));
        List<SsmrEffect> fromAhead = ahead.received(new PartitionMessage.Request(missed.get(0).id(), 1));
        assertThat(fromAhead).hasSize(3);
        int replies = 0;
        for (SsmrEffect e : fromAhead) {
            List<SsmrEffect> effects = behind.received(((SsmrEffect.Send) e).message());
            for (int guard = 0; guard < 10 && !effects.isEmpty(); guard++) {
                List<SsmrEffect> next = new ArrayList<>();
                for (SsmrEffect x : effects) {
                    if (x instanceof SsmrEffect.Execute ex) {
                        next.addAll(behind.executed(ex.command().id(), CommandResult.ok(EMPTY)));
                    } else if (x instanceof SsmrEffect.ComputeReads r) {
                        next.addAll(behind.readsComputed(r.command().id(), EMPTY, GroupSet.of(0)));
                    } else if (x instanceof SsmrEffect.Reply) {
                        replies++;
                    }
                }
                effects = next;
            }
        }
        assertThat(replies).isEqualTo(3);
        assertThat(behind.idle()).isTrue();
        assertThat(behind.counters().requestsSent()).isEqualTo(1);
    }

    @Test
    void replayExecutesWithTheLoggedValuesWithoutWaiting() {
        // The logged remote values make replay re-execute identically; no signals needed.
        Command c = cmd(1, BOTH);
        RemoteValues logged = RemoteValues.of(Map.of(1, bytes(77)));
        core.delivered(c, logged);
        List<SsmrEffect> effects = core.readsComputed(c.id(), EMPTY, GroupSet.of(1));
        assertThat(effects).contains(new SsmrEffect.Execute(c, GroupSet.of(1), logged));
        List<SsmrEffect> done = core.executed(c.id(), CommandResult.ok(bytes(77)));
        assertThat(done).containsExactly(new SsmrEffect.LogValues(c.id(), logged),
                new SsmrEffect.Reply(c, CommandResult.ok(bytes(77))));
    }

    @Test
    void signalsOffFinishesAsSoonAsExecutedAndSendsNoSignals() {
        SsmrCore unsafe = new SsmrCore(SsmrConfig.of(0, 2).withSignals(false));
        Command c = cmd(1, BOTH);
        assertThat(sends(unsafe.delivered(c))).isEmpty();
        unsafe.readsComputed(c.id(), EMPTY, null);
        assertThat(hasReply(unsafe.executed(c.id(), CommandResult.ok(EMPTY)))).isTrue();
    }

    @Test
    void failedReadsSendEmptyValuesAndTheErrorIsTheReply() {
        Command c = cmd(1, BOTH);
        core.delivered(c);
        CommandResult error = CommandResult.error("IllegalStateException: bad reads");
        List<SsmrEffect> effects = core.readsFailed(c.id(), error);
        assertThat(effects).containsExactly(new SsmrEffect.Send(1, new PartitionMessage.Values(c.id(), 0, EMPTY)));
        assertThat(core.received(new PartitionMessage.Signal(c.id(), 1)))
                .contains(new SsmrEffect.Reply(c, error));
    }

    @Test
    void oversizedLocalValuesFailTheCommand() {
        SsmrCore small = new SsmrCore(SsmrConfig.of(0, 2).withLimits(8, 64));
        Command c = cmd(1, BOTH);
        small.delivered(c);
        List<SsmrEffect> effects = small.readsComputed(c.id(), ByteBuffer.allocate(64), null);
        assertThat(effects).containsExactly(new SsmrEffect.Send(1, new PartitionMessage.Values(c.id(), 0, EMPTY)));
        List<SsmrEffect> done = small.received(new PartitionMessage.Signal(c.id(), 1));
        assertThat(((SsmrEffect.Reply) done.get(1)).result().error()).contains("localReads returned 64 bytes");
    }

    @Test
    void inputsThatDoNotFitTheHeadAreDriverBugs() {
        Command c = cmd(1, BOTH);
        assertThatThrownBy(() -> core.executed(c.id(), CommandResult.ok(EMPTY))).isInstanceOf(IllegalStateException.class);
        core.delivered(c);
        assertThatThrownBy(() -> core.executed(c.id(), CommandResult.ok(EMPTY))).isInstanceOf(IllegalStateException.class);
    }

    // -------------------------------------------------- through the driver and a real state machine

    private record Run(SsmrDriver driver, List<CommandResult> replies, List<int[]> sent, Registers machine,
                       InMemoryRemoteValuesLog log) {
    }

    private static Run driver(int partition, int partitions) {
        List<CommandResult> replies = new ArrayList<>();
        List<int[]> sent = new ArrayList<>();
        Registers machine = new Registers(partitions);
        InMemoryRemoteValuesLog log = new InMemoryRemoteValuesLog();
        SsmrDriver d = new SsmrDriver(SsmrConfig.of(partition, partitions), new SsmrStateMachine(machine), log,
                (q, m) -> sent.add(new int[]{q}), new SsmrDriver.Outcomes() {
                    @Override
                    public void replied(Command command, CommandResult result) {
                        replies.add(result);
                    }

                    @Override
                    public void skipped(Command command) {
                    }
                });
        return new Run(d, replies, sent, machine, log);
    }

    @Test
    void tooFewPartitionsFailWithTheWrongPartitionsErrorTheClientParses() {
        Run run = driver(0, 2);
        Command c = Registers.command(1, 1, GroupSet.of(0), Registers.copy(1, 0));
        run.driver().deliver(c);
        assertThat(run.replies()).hasSize(1);
        assertThat(run.replies().get(0).isError()).isTrue();
        assertThat(WrongPartitions.parse(run.replies().get(0).error())).contains(GroupSet.of(0, 1));
        assertThat(run.machine().value(0)).isZero();
    }

    @Test
    void exceptionsFromExecuteAndFromReadsBecomeErrorReplies() {
        Run run = driver(0, 1);
        run.driver().deliver(Registers.command(1, 1, new byte[]{Registers.BOOM, 0}));
        run.driver().deliver(Registers.command(1, 2, new byte[]{Registers.BAD_READS, 0}));
        run.driver().deliver(Registers.command(1, 3, Registers.write(0, 4)));
        assertThat(run.replies()).extracting(CommandResult::error)
                .containsExactly("IllegalStateException: boom", "IllegalStateException: bad reads", null);
        assertThat(run.machine().value(0)).isEqualTo(4);
        assertThat(run.log().size()).isEqualTo(3);
    }

    @Test
    void finishedCommandsAreLoggedWithTheValuesTheyReadBeforeTheReply() {
        Run run = driver(0, 2);
        Command c = Registers.command(1, 1, Registers.readAll(new int[]{0, 1}));
        run.driver().deliver(c);
        assertThat(run.sent()).hasSize(1); // its values (its signal) to partition 1
        run.driver().receive(new PartitionMessage.Values(c.id(), 1, bytes(11)));
        assertThat(run.log().lookup(c.id())).contains(RemoteValues.of(Map.of(1, bytes(11))));
        assertThat(Registers.decodeLongs(run.replies().get(0).reply())).containsExactly(0L, 11L);
    }
}
