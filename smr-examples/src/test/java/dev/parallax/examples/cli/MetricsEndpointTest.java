package dev.parallax.examples.cli;

import dev.parallax.core.net.LinkFaults;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The metrics port's fault commands ({@code --fault-control}): two-sided and one-way link cuts,
 * heal, and bad requests that change nothing.
 */
class MetricsEndpointTest {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private int get(MetricsEndpoint endpoint, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.port() + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    @Test
    void theFaultCommandsCutLinksBothWaysOrOneWayAndHealThem() throws Exception {
        LinkFaults faults = new LinkFaults();
        try (MetricsEndpoint endpoint = new MetricsEndpoint(MetricsEndpoint.registry(), "127.0.0.1", 0, faults)) {
            assertThat(get(endpoint, "/faults/block?peers=1")).isEqualTo(200);
            assertThat(faults.isBlocked(1)).isTrue();
            assertThat(get(endpoint, "/faults/block-in?peers=2,3")).isEqualTo(200);
            assertThat(faults.isInboundBlocked(2)).isTrue();
            assertThat(faults.isInboundBlocked(3)).isTrue();
            assertThat(faults.isOutboundBlocked(2)).isFalse();
            assertThat(get(endpoint, "/faults/block-out?peers=4")).isEqualTo(200);
            assertThat(faults.isOutboundBlocked(4)).isTrue();
            assertThat(faults.isInboundBlocked(4)).isFalse();
            assertThat(get(endpoint, "/faults/heal")).isEqualTo(200);
            for (int p = 1; p <= 4; p++) {
                assertThat(faults.isInboundBlocked(p) || faults.isOutboundBlocked(p)).as("peer %d", p).isFalse();
            }
            assertThat(get(endpoint, "/metrics")).isEqualTo(200);
        }
    }

    @Test
    void badFaultRequestsAreRefusedAndChangeNothing() throws Exception {
        LinkFaults faults = new LinkFaults();
        try (MetricsEndpoint endpoint = new MetricsEndpoint(MetricsEndpoint.registry(), "127.0.0.1", 0, faults)) {
            assertThat(get(endpoint, "/faults/block-in?peers=1,x")).isEqualTo(400);
            assertThat(get(endpoint, "/faults/block-out?peers=-1")).isEqualTo(400);
            assertThat(get(endpoint, "/faults/block-sideways?peers=1")).isEqualTo(404);
            assertThat(get(endpoint, "/faults/block")).isEqualTo(404);
            assertThat(faults.isInboundBlocked(1) || faults.isOutboundBlocked(1)).isFalse();
            assertThat(get(endpoint, "/faults/block?peers=2")).as("the endpoint still serves").isEqualTo(200);
        }
        try (MetricsEndpoint noFaults = new MetricsEndpoint(MetricsEndpoint.registry(), "127.0.0.1", 0)) {
            assertThat(get(noFaults, "/faults/heal")).as("without --fault-control there are no fault commands").isEqualTo(404);
        }
    }
}
