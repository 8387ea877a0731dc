package dev.parallax.core.arch;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The layering of smr-core (docs/architecture.md, "Layers"): {@code spi} is the
 * bottom layer — it imports only the JDK and the core value types of {@code dev.parallax.core} —
 * and no two packages of smr-core depend on each other in a cycle.
 */
class LayeringTest {
    private static JavaClasses core;

    @BeforeAll
    static void importCore() {
        core = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.parallax.core");
    }

    @Test
    @DisplayName("spi imports only the JDK and dev.parallax.core value types")
    void spiIsTheBottomLayer() {
        ArchRule rule = classes().that().resideInAPackage("dev.parallax.core.spi..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "dev.parallax.core", "dev.parallax.core.spi..");
        rule.check(core);
    }

    @Test
    @DisplayName("the core value types import nothing else of smr-core and no library")
    void valueTypesDependOnNothing() {
        ArchRule rule = classes().that().resideInAPackage("dev.parallax.core")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "dev.parallax.core");
        rule.check(core);
    }

    @Test
    @DisplayName("no package cycle in smr-core")
    void noPackageCycles() {
        slices().matching("dev.parallax.core.(*)..").should().beFreeOfCycles().check(core);
    }

    @Test
    @DisplayName("protocol cores, effects and read-index do not import Netty, the runtime or the replica")
    void protocolPackageStaysPure() {
        classes().that().resideInAnyPackage("dev.parallax.core.protocol..", "dev.parallax.core.readindex..")
                .should().onlyDependOnClassesThat().resideOutsideOfPackages("io.netty..", "dev.parallax.core.runtime..",
                        "dev.parallax.core.replica..", "dev.parallax.core.net..")
                .check(core);
    }
}
