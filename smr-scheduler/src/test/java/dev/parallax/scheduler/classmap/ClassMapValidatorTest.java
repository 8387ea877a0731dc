package dev.parallax.scheduler.classmap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClassMapValidatorTest {

    @Test
    void rule1EveryClassNeedsAThread() {
        assertThatThrownBy(() -> ClassMap.builder(2).conc("R").build())
                .isInstanceOfSatisfying(InvalidClassMapException.class, e -> {
                    assertThat(e.rule()).isEqualTo(1);
                    assertThat(e.classes()).containsExactly("R");
                    assertThat(e.getMessage()).contains("rule 1").contains("R has no thread");
                });
    }

    @Test
    void rule2ASelfConflictingClassIsSequential() {
        assertThatThrownBy(() -> ClassMap.builder(2).conc("W", 0, 1).conflict("W", "W").build())
                .isInstanceOfSatisfying(InvalidClassMapException.class, e -> {
                    assertThat(e.rule()).isEqualTo(2);
                    assertThat(e.classes()).containsExactly("W");
                    assertThat(e.getMessage()).contains("rule 2").contains("W conflicts with itself");
                });
    }

    @Test
    void rule3TwoConflictingClassesAreNotBothConcurrent() {
        assertThatThrownBy(() -> ClassMap.builder(2).conc("A", 0).conc("B", 1).conflict("A", "B").build())
                .isInstanceOfSatisfying(InvalidClassMapException.class, e -> {
                    assertThat(e.rule()).isEqualTo(3);
                    assertThat(e.classes()).containsExactly("A", "B");
                    assertThat(e.getMessage()).contains("rule 3").contains("A and B");
                });
    }

    @Test
    void rule4AConcurrentClassLiesWithinEveryConflictingSequentialClass() {
        assertThatThrownBy(() -> ClassMap.builder(3).seq("W", 0, 1).conc("R", 1, 2).conflict("R", "W")
                .conflict("W", "W").build())
                .isInstanceOfSatisfying(InvalidClassMapException.class, e -> {
                    assertThat(e.rule()).isEqualTo(4);
                    assertThat(e.classes()).containsExactly("W", "R");
                    assertThat(e.getMessage()).contains("rule 4").contains("CONC class R {t1, t2}")
                            .contains("SEQ class W {t0, t1}");
                });
    }

    @Test
    void rule5TwoConflictingSequentialClassesShareAThread() {
        assertThatThrownBy(() -> ClassMap.builder(2).seq("A", 0).seq("B", 1).conflict("A", "B").build())
                .isInstanceOfSatisfying(InvalidClassMapException.class, e -> {
                    assertThat(e.rule()).isEqualTo(5);
                    assertThat(e.classes()).containsExactly("A", "B");
                    assertThat(e.getMessage()).contains("rule 5").contains("no thread in common");
                });
    }

    @Test
    void theExtractedTable51BreaksRule5ForRgAndW3() {
        ClassMap.Builder b = ClassMap.builder(8)
                .conc("R1", 2, 4).conc("R2", 0, 6).conc("R3", 3, 5).conc("R4", 1, 7)
                .seq("W1", 2, 4).seq("W2", 0, 6).seq("W3", 3, 5).seq("W4", 1, 7)
                .seq("Rg", 0, 4, 6, 7).seq("Wg", 0, 1, 2, 3, 4, 5, 6, 7);
        for (int x = 1; x <= 4; x++) {
            b.conflict("R" + x, "W" + x).conflict("R" + x, "Wg").conflict("W" + x, "W" + x)
                    .conflict("W" + x, "Rg").conflict("W" + x, "Wg");
        }
        b.conflict("Rg", "Rg").conflict("Rg", "Wg").conflict("Wg", "Wg");
        assertThatThrownBy(b::build).isInstanceOfSatisfying(InvalidClassMapException.class, e -> {
            assertThat(e.rule()).isEqualTo(5);
            assertThat(e.classes()).containsExactly("W3", "Rg");
        });
    }

    @Test
    void table41IsValid() {
        ClassMap map = ClassMap.builder(4)
                .conc("R1", 0, 2).conc("R2", 1, 3).seq("W1", 0, 2).seq("W2", 1, 3).seq("Rg", 0, 3)
                .seq("Wg", 0, 1, 2, 3)
                .conflict("R1", "W1").conflict("R1", "Wg").conflict("R2", "W2").conflict("R2", "Wg")
                .conflict("W1", "W1").conflict("W2", "W2").conflict("W1", "Rg").conflict("W2", "Rg")
                .conflict("W1", "Wg").conflict("W2", "Wg").conflict("Rg", "Rg").conflict("Rg", "Wg")
                .conflict("Wg", "Wg")
                .build();
        assertThat(ClassMapValidator.violations(map)).isEmpty();
        assertThat(map.indexOf("Rg")).isEqualTo(4);
        assertThat(map.threads(4)).containsExactly(0, 3);
    }

    @Test
    void violationsListsEveryBrokenRule() {
        ClassMap valid = ReadWriteClasses.classMap(2);
        assertThat(ClassMapValidator.violations(valid)).isEmpty();
        // One map breaking all five rules: E has no thread (1); C conflicts with itself but is CONC
        // (2); C and D are both CONC and conflict (3); SEQ S {t0} conflicts with CONC D {t1} (4); SEQ
        // S {t0} and SEQ T {t1} conflict without a common thread (5).
        ClassMap broken = ClassMap.builder(2)
                .seq("E").conc("C", 0).conc("D", 1).seq("S", 0).seq("T", 1)
                .conflict("C", "C").conflict("C", "D").conflict("S", "D").conflict("S", "T")
                .buildUnchecked();
        java.util.List<InvalidClassMapException> v = ClassMapValidator.violations(broken);
        assertThat(v).extracting(InvalidClassMapException::rule).containsExactly(1, 2, 3, 4, 5);
        assertThat(v).extracting(InvalidClassMapException::classes).containsExactly(
                java.util.List.of("E"), java.util.List.of("C"), java.util.List.of("C", "D"),
                java.util.List.of("S", "D"), java.util.List.of("S", "T"));
        assertThat(v.get(0).getMessage()).contains("rule 1").contains("E has no thread");
        assertThat(v.get(1).getMessage()).contains("rule 2").contains("C conflicts with itself");
        assertThat(v.get(2).getMessage()).contains("rule 3").contains("C and D");
        assertThat(v.get(3).getMessage()).contains("rule 4").contains("CONC class D {t1}").contains("SEQ class S {t0}");
        assertThat(v.get(4).getMessage()).contains("rule 5").contains("no thread in common");
        assertThatThrownBy(() -> ClassMapValidator.validate(broken))
                .isInstanceOfSatisfying(InvalidClassMapException.class, e -> assertThat(e.rule()).isEqualTo(1));
    }

    @Test
    void builderRejectsBadInput() {
        assertThatThrownBy(() -> ClassMap.builder(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClassMap.builder(2).conc("A", 2)).hasMessageContaining("thread 2 outside");
        assertThatThrownBy(() -> ClassMap.builder(2).conc("A", 0).conc("A", 1)).hasMessageContaining("duplicate");
        assertThatThrownBy(() -> ClassMap.builder(2).conc("A", 0).conflict("A", "B")).hasMessageContaining("no class named B");
        assertThatThrownBy(() -> ClassMap.builder(2).build()).hasMessageContaining("at least one class");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void shardedMapsHave2nPlus2ValidClasses(int shards) {
        ShardedClasses classes = new ShardedClasses(shards);
        ClassMap map = classes.classMap();
        assertThat(map.threadCount()).isEqualTo(2 * shards);
        assertThat(map.classCount()).isEqualTo(2 * shards + 2);
        for (int x = 0; x < shards; x++) {
            assertThat(map.threads(classes.localRead(x))).containsExactly(2 * x, 2 * x + 1);
            assertThat(map.mode(classes.localRead(x))).isEqualTo(ClassMode.CONC);
            assertThat(map.mode(classes.localWrite(x))).isEqualTo(ClassMode.SEQ);
            assertThat(map.name(classes.localWrite(x))).isEqualTo("W" + (x + 1));
        }
        assertThat(map.threads(classes.globalRead())).hasSize(shards);
        assertThat(map.threads(classes.globalWrite())).hasSize(2 * shards);
        assertThat(map.conflicts(classes.globalRead(), classes.localRead(0))).isFalse();
        assertThat(map.conflicts(classes.globalRead(), classes.globalRead())).isTrue();
        if (shards > 1) {
            assertThat(map.conflicts(classes.localWrite(0), classes.localWrite(1))).isFalse();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 7})
    void shardedMapsFitAnyThreadCount(int threads) {
        for (int shards = 1; shards <= 4; shards++) {
            ClassMap map = new ShardedClasses(shards).classMap(threads);
            assertThat(ClassMapValidator.violations(map)).isEmpty();
            assertThat(map.threadCount()).isEqualTo(threads);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void readWriteMapIsConcReadsAndSeqWritesOnAllThreads(int threads) {
        ClassMap map = ReadWriteClasses.classMap(threads);
        assertThat(map.mode(ReadWriteClasses.READ)).isEqualTo(ClassMode.CONC);
        assertThat(map.mode(ReadWriteClasses.WRITE)).isEqualTo(ClassMode.SEQ);
        assertThat(map.threads(ReadWriteClasses.WRITE)).hasSize(threads);
        assertThat(map.conflicts(ReadWriteClasses.READ, ReadWriteClasses.READ)).isFalse();
    }
}
