package dev.parallax.core.testkit;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.CommandRouter;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The C-G validator (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6 §6.3.2) on a toy service:
 * commands are two ASCII characters, an op ({@code r} read, {@code w} write, {@code c} clear all)
 * and a key digit; the key's group is the digit mod 3.
 */
class CommandGroupsValidatorTest {
    private static final int K = 3;

    private static ByteBuffer cmd(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }

    private static String text(ByteBuffer b) {
        byte[] bytes = new byte[b.remaining()];
        b.get(b.position(), bytes);
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    /** Same key and one writes, or a clear-all against anything that is not a pure pair of reads. */
    private static final BiPredicate<ByteBuffer, ByteBuffer> DEPENDENT = (a, b) -> {
        char opA = (char) a.get(a.position());
        char opB = (char) b.get(b.position());
        if (opA == 'c' || opB == 'c') {
            return true;
        }
        return a.get(a.position() + 1) == b.get(b.position() + 1) && (opA == 'w' || opB == 'w');
    };

    /** The right C-G: a key's group; clear-all to every group. */
    private static final CommandRouter ROUTER = c -> c.get(c.position()) == 'c'
            ? GroupSet.of(0, 1, 2) : GroupSet.of((c.get(c.position() + 1) - '0') % K);

    private static List<ByteBuffer> mix() {
        List<ByteBuffer> out = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            char op = i % 17 == 5 ? 'c' : i % 3 == 0 ? 'w' : 'r';
            out.add(cmd("" + op + (char) ('0' + i % 7)));
        }
        return out;
    }

    @Test
    void aRouterThatGivesDependentCommandsACommonGroupPasses() {
        CommandGroupsValidator.Report report = CommandGroupsValidator.check(ROUTER, DEPENDENT, mix(),
                CommandGroupsValidatorTest::text);
        assertThat(report.passed()).as(report.describe()).isTrue();
        assertThat(report.violations()).isEmpty();
        assertThat(report.commands()).isEqualTo(60);
        assertThat(report.dependentPairs()).as("the mix has dependent pairs to check").isGreaterThan(100);
        // keys 0/3/6, 1/4, 2/5 share a group without depending on each other: counted, not an error.
        assertThat(report.independentPairsSharingGroup()).isPositive();
        assertThat(report.describe()).startsWith("60 commands (0 unroutable), " + report.dependentPairs()
                + " dependent pairs, 0 of them with disjoint groups; ");
    }

    @Test
    void dependentCommandsWithDisjointGroupsAreReportedReadably() {
        CommandRouter clearToGroupZero = c -> c.get(c.position()) == 'c' ? GroupSet.DEFAULT : ROUTER.route(c);
        List<ByteBuffer> commands = List.of(cmd("w1"), cmd("r2"), cmd("c0"), cmd("r1"), cmd("w3"));
        CommandGroupsValidator.Report report = CommandGroupsValidator.check(clearToGroupZero, DEPENDENT, commands,
                CommandGroupsValidatorTest::text);
        assertThat(report.passed()).isFalse();
        // c0 -> {0} against w1 -> {1} and r2 -> {2} and r1 -> {1}; w3 -> {0} shares group 0.
        assertThat(report.violationCount()).isEqualTo(3);
        assertThat(report.violations()).extracting(CommandGroupsValidator.Violation::first,
                CommandGroupsValidator.Violation::second).containsExactly(
                        org.assertj.core.groups.Tuple.tuple(0, 2), org.assertj.core.groups.Tuple.tuple(1, 2),
                        org.assertj.core.groups.Tuple.tuple(2, 3));
        CommandGroupsValidator.Violation first = report.violations().get(0);
        assertThat(first.firstGroups()).isEqualTo(GroupSet.of(1));
        assertThat(first.secondGroups()).isEqualTo(GroupSet.DEFAULT);
        assertThat(first.description()).isEqualTo("#0 w1 -> {1} and #2 c0 -> {0} depend on each other but share no group");
        assertThat(report.describe()).contains("3 of them with disjoint groups")
                .contains("#2 c0 -> {0} and #3 r1 -> {1} depend on each other but share no group");
    }

    @Test
    void withoutADescriberCommandsAreNamedByTheirBytesInHex() {
        CommandRouter byKeyOnly = c -> GroupSet.of((c.get(c.position() + 1) - '0') % K);
        CommandGroupsValidator.Report report = CommandGroupsValidator.check(byKeyOnly, DEPENDENT,
                List.of(cmd("r1"), cmd("c0")));
        assertThat(report.violations()).singleElement().extracting(CommandGroupsValidator.Violation::description)
                .isEqualTo("#0 [7231 (2 bytes)] -> {1} and #1 [6330 (2 bytes)] -> {0} depend on each other but share no group");
    }

    @Test
    void rejectedCommandsAreLeftOutAndContractBreachesAreErrors() {
        CommandRouter picky = c -> {
            char op = (char) c.get(c.position());
            if (op == 'x') {
                throw new IllegalArgumentException("unknown op");
            }
            if (op == 'n') {
                return null;
            }
            if (op == 'm') {
                c.position(c.position() + 1);
            }
            return GroupSet.DEFAULT;
        };
        CommandGroupsValidator.Report report = CommandGroupsValidator.check(picky, (a, b) -> true,
                List.of(cmd("x1"), cmd("r1"), cmd("n1"), cmd("m1"), cmd("r2")), CommandGroupsValidatorTest::text);
        assertThat(report.unroutable()).isEqualTo(1);
        assertThat(report.routerErrors()).containsExactly("#2 n1 routed to null",
                "#3 m1: route moved the buffer from 0..2 to 1..2");
        assertThat(report.passed()).isFalse();
        assertThat(report.violationCount()).isZero();
        // r1, m1, r2 (all in group 0) pair up; x1 and n1 are left out.
        assertThat(report.dependentPairs()).isEqualTo(3);
    }

    @Test
    void theCallersBuffersAreNotMovedAndManyViolationsAreCountedButKeptBounded() {
        List<ByteBuffer> commands = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            commands.add(ByteBuffer.wrap(new byte[] {(byte) i}));
        }
        CommandRouter ownGroup = c -> GroupSet.of(c.get(c.position()));
        CommandGroupsValidator.Report report = CommandGroupsValidator.check(ownGroup, (a, b) -> {
            a.get(); // a relation that consumes its views must not disturb the next pair
            b.get();
            return true;
        }, commands);
        assertThat(report.violationCount()).isEqualTo(50 * 49 / 2);
        assertThat(report.violations()).hasSize(CommandGroupsValidator.MAX_KEPT);
        assertThat(report.describe()).contains("... " + (50 * 49 / 2 - 10) + " more");
        assertThat(commands).allSatisfy(b -> assertThat(b.position()).isZero());
    }
}
