package dev.parallax.ringpaxos.arch;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * smr-ringpaxos stays a protocol module (docs/architecture.md, "Layers"): it reaches peers through the spi
 * {@code Transport} and {@code MessageCodec} and the datagram group through
 * {@code OrderingContext.datagramGroup}, so it imports no Netty and none of smr-core's network edge
 * or replica; and it starts no thread of its own: smr-core's runtime and stages run it.
 */
class RingModuleLayeringTest {
    private static JavaClasses ring;

    @BeforeAll
    static void importModule() {
        ring = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.parallax.ringpaxos");
    }

    @Test
    @DisplayName("the module's classes are imported (the rules below check something)")
    void classesAreThere() {
        assertThat(ring.contain("dev.parallax.ringpaxos.RingCodec")).isTrue();
        assertThat(ring.contain("dev.parallax.ringpaxos.Ring")).isTrue();
    }

    @Test
    @DisplayName("smr-ringpaxos imports no Netty class")
    void noNetty() {
        noClasses().should().dependOnClassesThat().resideInAPackage("io.netty..").check(ring);
    }

    @Test
    @DisplayName("smr-ringpaxos does not reach into smr-core's network edge (core.net: DatagramPort is reached via OrderingContext) or replica")
    void noNetworkEdge() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("dev.parallax.core.net..", "dev.parallax.core.replica..")
                .check(ring);
    }

    @Test
    @DisplayName("smr-ringpaxos creates no threads, executors or thread factories (the runtime's stages run it)")
    void noThreads() {
        noClasses().should().dependOnClassesThat().areAssignableTo(Thread.class)
                .orShould().dependOnClassesThat().areAssignableTo(Executor.class)
                .orShould().dependOnClassesThat().areAssignableTo(ThreadFactory.class)
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.concurrent.Executors")
                .check(ring);
    }

    @Test
    @DisplayName("no JDK datagram or socket channel in the module: datagrams go through smr-core's DatagramPort")
    void noSockets() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("java.net..", "java.nio.channels..").check(ring);
    }
}
