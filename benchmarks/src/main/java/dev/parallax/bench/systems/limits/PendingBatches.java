package dev.parallax.bench.systems.limits;

/**
 * The leader's relayed batches not yet acknowledged, oldest first: which client sent each and how
 * many commands it holds. A growable ring of two parallel arrays, so relaying a batch allocates
 * nothing once the ring is large enough. Confined to one event loop; not thread-safe.
 */
final class PendingBatches {
    private ClientLink[] clients = new ClientLink[64];
    private int[] counts = new int[64];
    private int head;
    private int size;

    void add(ClientLink client, int commands) {
        if (size == clients.length) {
            grow();
        }
        int tail = (head + size) & (clients.length - 1);
        clients[tail] = client;
        counts[tail] = commands;
        size++;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** The client of the oldest batch. */
    ClientLink oldestClient() {
        return clients[head];
    }

    /** The command count of the oldest batch. */
    int oldestCount() {
        return counts[head];
    }

    void removeOldest() {
        clients[head] = null;
        head = (head + 1) & (clients.length - 1);
        size--;
    }

    private void grow() {
        ClientLink[] c = new ClientLink[clients.length * 2];
        int[] n = new int[counts.length * 2];
        for (int i = 0; i < size; i++) {
            int from = (head + i) & (clients.length - 1);
            c[i] = clients[from];
            n[i] = counts[from];
        }
        clients = c;
        counts = n;
        head = 0;
    }
}
