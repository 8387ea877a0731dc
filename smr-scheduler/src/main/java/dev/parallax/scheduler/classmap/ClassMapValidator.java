package dev.parallax.scheduler.classmap;

import java.util.ArrayList;
import java.util.List;

/**
 * Checks a class-to-threads map against the five rules of seed 001 §4.2.2 that make early
 * scheduling linearizable:
 * <ol>
 *   <li>every class has at least one thread;</li>
 *   <li>a self-conflicting class is sequential;</li>
 *   <li>of two conflicting classes at least one is sequential;</li>
 *   <li>if a sequential class conflicts with a concurrent one, the concurrent class's threads are
 *       a subset of the sequential class's threads;</li>
 *   <li>two conflicting sequential classes share at least one thread.</li>
 * </ol>
 * The extracted Table 5.1 of seed 001 breaks rule 5 (C_Rg and C_W3 share no thread), which is why
 * every map is validated in code (PROTOCOLS.md §6, errata).
 *
 * <p>Stateless and thread-safe.
 */
public final class ClassMapValidator {
    private ClassMapValidator() {
    }

    /**
     * Every rule violation of {@code map}, in rule order then class order; empty if the map is
     * valid. Never throws.
     */
    public static List<InvalidClassMapException> violations(ClassMap map) {
        List<InvalidClassMapException> out = new ArrayList<>();
        int n = map.classCount();
        for (int c = 0; c < n; c++) {
            if (map.threadsOf(c).length == 0) {
                out.add(violation(1, "every class has at least one thread", map, c,
                        "class " + map.name(c) + " has no thread"));
            }
        }
        for (int c = 0; c < n; c++) {
            if (map.conflicts(c, c) && map.mode(c) != ClassMode.SEQ) {
                out.add(violation(2, "a self-conflicting class is sequential", map, c,
                        "class " + map.name(c) + " conflicts with itself but is " + map.mode(c)));
            }
        }
        for (int a = 0; a < n; a++) {
            for (int b = a + 1; b < n; b++) {
                if (map.conflicts(a, b) && map.mode(a) == ClassMode.CONC && map.mode(b) == ClassMode.CONC) {
                    out.add(violation(3, "of two conflicting classes at least one is sequential", map, a, b,
                            "classes " + map.name(a) + " and " + map.name(b) + " conflict and are both CONC"));
                }
            }
        }
        for (int s = 0; s < n; s++) {
            for (int c = 0; c < n; c++) {
                if (s != c && map.conflicts(s, c) && map.mode(s) == ClassMode.SEQ && map.mode(c) == ClassMode.CONC
                        && !subset(map.threadsOf(c), map.threadsOf(s))) {
                    out.add(violation(4, "a concurrent class's threads are a subset of every conflicting "
                            + "sequential class's threads", map, s, c, "CONC class " + map.name(c) + " "
                            + fmt(map.threadsOf(c)) + " is not within SEQ class " + map.name(s) + " "
                            + fmt(map.threadsOf(s))));
                }
            }
        }
        for (int a = 0; a < n; a++) {
            for (int b = a + 1; b < n; b++) {
                if (map.conflicts(a, b) && map.mode(a) == ClassMode.SEQ && map.mode(b) == ClassMode.SEQ
                        && !intersect(map.threadsOf(a), map.threadsOf(b))) {
                    out.add(violation(5, "two conflicting sequential classes share a thread", map, a, b,
                            "SEQ classes " + map.name(a) + " " + fmt(map.threadsOf(a)) + " and " + map.name(b)
                                    + " " + fmt(map.threadsOf(b)) + " have no thread in common"));
                }
            }
        }
        return out;
    }

    /**
     * Throws the first violation of {@code map}, if any.
     *
     * @throws InvalidClassMapException naming the rule and the classes
     */
    public static void validate(ClassMap map) {
        List<InvalidClassMapException> v = violations(map);
        if (!v.isEmpty()) {
            throw v.get(0);
        }
    }

    private static InvalidClassMapException violation(int rule, String ruleText, ClassMap map, int c, String detail) {
        return new InvalidClassMapException(rule, List.of(map.name(c)), message(rule, ruleText, detail));
    }

    private static InvalidClassMapException violation(int rule, String ruleText, ClassMap map, int a, int b,
                                                      String detail) {
        return new InvalidClassMapException(rule, List.of(map.name(a), map.name(b)), message(rule, ruleText, detail));
    }

    private static String message(int rule, String ruleText, String detail) {
        return "class map breaks rule " + rule + " (" + ruleText + "; seed 001 §4.2.2): " + detail;
    }

    private static boolean subset(int[] small, int[] big) {
        for (int t : small) {
            if (!contains(big, t)) {
                return false;
            }
        }
        return true;
    }

    private static boolean intersect(int[] a, int[] b) {
        for (int t : a) {
            if (contains(b, t)) {
                return true;
            }
        }
        return false;
    }

    private static boolean contains(int[] sorted, int t) {
        return java.util.Arrays.binarySearch(sorted, t) >= 0;
    }

    private static String fmt(int[] threads) {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < threads.length; i++) {
            sb.append(i == 0 ? "t" : ", t").append(threads[i]);
        }
        return sb.append('}').toString();
    }
}
