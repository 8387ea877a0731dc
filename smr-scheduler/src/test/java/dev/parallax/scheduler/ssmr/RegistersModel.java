package dev.parallax.scheduler.ssmr;

import dev.parallax.core.check.Model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The sequential specification of {@link Registers} for the linearizability checker: the state is
 * every variable's value (an immutable list), checked as one partition (multi-variable commands do
 * not commute with single-variable ones). Stateless.
 */
final class RegistersModel implements Model<List<Long>, RegistersModel.Op, List<Long>> {
    /** An operation as the client issued it. */
    record Op(byte type, int[] vars, long[] vals) {
        @Override
        public String toString() {
            String name = switch (type) {
                case Registers.READ -> "read";
                case Registers.WRITE -> "write";
                case Registers.MULTI_WRITE -> "multiWrite";
                case Registers.READ_ALL -> "readAll";
                default -> "copy";
            };
            return name + Arrays.toString(vars) + (vals.length == 0 ? "" : "=" + Arrays.toString(vals));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Op op && op.type == type && Arrays.equals(op.vars, vars) && Arrays.equals(op.vals, vals);
        }

        @Override
        public int hashCode() {
            return type * 31 * 31 + Arrays.hashCode(vars) * 31 + Arrays.hashCode(vals);
        }

        byte[] encode() {
            return switch (type) {
                case Registers.READ -> Registers.read(vars[0]);
                case Registers.WRITE -> Registers.write(vars[0], vals[0]);
                case Registers.MULTI_WRITE -> Registers.multiWrite(vars, vals);
                case Registers.READ_ALL -> Registers.readAll(vars);
                default -> Registers.copy(vars[0], vars[1]);
            };
        }
    }

    private final int variables;

    RegistersModel(int variables) {
        this.variables = variables;
    }

    @Override
    public List<Long> initialState() {
        List<Long> s = new ArrayList<>();
        for (int i = 0; i < variables; i++) {
            s.add(0L);
        }
        return List.copyOf(s);
    }

    @Override
    public List<Long> step(List<Long> state, Op op, List<Long> output) {
        List<Long> expected = switch (op.type) {
            case Registers.READ -> List.of(state.get(op.vars[0]));
            case Registers.READ_ALL -> Arrays.stream(op.vars).mapToObj(state::get).toList();
            case Registers.COPY -> List.of(state.get(op.vars[0]));
            default -> List.of();
        };
        return expected.equals(output) ? stepUnknownOutcome(state, op) : null;
    }

    @Override
    public List<Long> stepUnknownOutcome(List<Long> state, Op op) {
        switch (op.type) {
            case Registers.WRITE, Registers.MULTI_WRITE -> {
                List<Long> next = new ArrayList<>(state);
                for (int i = 0; i < op.vars.length; i++) {
                    next.set(op.vars[i], op.vals[i]);
                }
                return List.copyOf(next);
            }
            case Registers.COPY -> {
                List<Long> next = new ArrayList<>(state);
                next.set(op.vars[1], state.get(op.vars[0]));
                return List.copyOf(next);
            }
            default -> {
                return state;
            }
        }
    }

    @Override
    public boolean isReadOnly(Op op) {
        return op.type == Registers.READ || op.type == Registers.READ_ALL;
    }
}
