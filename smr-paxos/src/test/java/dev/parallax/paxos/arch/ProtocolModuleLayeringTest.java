package dev.parallax.paxos.arch;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * A protocol module stays off the network edge (docs/architecture.md, "Layers"): it talks to peers through the spi
 * {@code Transport} and {@code MessageCodec} over the project's own wire buffers, so it never
 * imports Netty, nor smr-core's Netty-based packages.
 */
class ProtocolModuleLayeringTest {
    private static JavaClasses paxos;

    @BeforeAll
    static void importModule() {
        paxos = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.parallax.paxos");
    }

    @Test
    @DisplayName("smr-paxos imports no Netty class")
    void noNetty() {
        noClasses().should().dependOnClassesThat().resideInAPackage("io.netty..").check(paxos);
    }

    @Test
    @DisplayName("smr-paxos does not reach into smr-core's network edge or replica")
    void noNetworkEdge() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("dev.parallax.core.net..", "dev.parallax.core.replica..")
                .check(paxos);
    }
}
