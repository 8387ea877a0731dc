package dev.parallax.core.testkit;

import dev.parallax.core.spi.Transport;

/** The in-process test network passes the shared transport contract. */
class LocalNetworkTest extends TransportContract {
    private final LocalNetwork<String> network = new LocalNetwork<>(3);

    @Override
    protected Transport<String> member(int id) {
        return network.transport(id);
    }
}
