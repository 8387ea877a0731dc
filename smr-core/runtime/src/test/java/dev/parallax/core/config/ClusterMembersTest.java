package dev.parallax.core.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClusterMembersTest {

    @Test
    void parsesTheDocumentedForm() {
        ClusterMembers c = ClusterMembers.parse("0=127.0.0.1:7000, 1=localhost:7001,2=[::1]:7002");
        assertThat(c.size()).isEqualTo(3);
        assertThat(c.member(0)).isEqualTo(new Member(0, "127.0.0.1", 7000));
        assertThat(c.member(1).host()).isEqualTo("localhost");
        assertThat(c.member(2).host()).isEqualTo("::1");
        assertThat(c.quorum()).isEqualTo(2);
        assertThat(c.maxFailures()).isEqualTo(1);
    }

    @Test
    void entriesMayComeInAnyOrderAndRoundTripThroughToString() {
        ClusterMembers c = ClusterMembers.parse("2=c:3,0=a:1,1=b:2");
        assertThat(c.members()).extracting(Member::host).containsExactly("a", "b", "c");
        assertThat(ClusterMembers.parse(c.toString())).isEqualTo(c);
        ClusterMembers v6 = ClusterMembers.parse("0=[::1]:1,1=[::1]:2");
        assertThat(ClusterMembers.parse(v6.toString())).isEqualTo(v6);
    }

    @Test
    void quorumSizes() {
        assertThat(ClusterMembers.parse("0=a:1").quorum()).isEqualTo(1);
        assertThat(ClusterMembers.parse("0=a:1,1=a:2").quorum()).isEqualTo(2);
        assertThat(ClusterMembers.parse("0=a:1,1=a:2,2=a:3,3=a:4,4=a:5").quorum()).isEqualTo(3);
        assertThat(ClusterMembers.parse("0=a:1,1=a:2,2=a:3,3=a:4,4=a:5").maxFailures()).isEqualTo(2);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "''|empty",
            "0=a|expected host:port",
            "a:1|expected id=host:port",
            "x=a:1|id is not a number",
            "0=a:port|port is not a number",
            "0=a:0|port must be 1..65535",
            "0=a:70000|port must be 1..65535",
            "0=a:1,0=b:2|appears twice",
            "0=a:1,2=b:2|must be 0..1",
            "0=a:1,1=a:1|share the address",
            "0=::1:7000|IPv6 in brackets",
            "0=[::1:7000|expected [ipv6]:port",
            "0=:7000|expected host:port",
            "0=a:1,|entry 2",
    })
    void rejectsMalformedSpecsWithAClearMessage(String spec, String message) {
        assertThatThrownBy(() -> ClusterMembers.parse(spec))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void memberLookupOutOfRangeIsAClearError() {
        assertThatThrownBy(() -> ClusterMembers.parse("0=a:1").member(3)).hasMessageContaining("no member 3");
    }
}
