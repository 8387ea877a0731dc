package dev.parallax.scheduler;

import dev.parallax.core.Command;

/**
 * The CBASE dependency graph of late scheduling (seed 001 §1 and §3.2, after Kotla and Dahlin):
 * a directed acyclic graph of the commands delivered and not yet completed, with an edge from each
 * command to every later one it conflicts with. The scheduler {@link #insert inserts} each command,
 * comparing it with every command still in the graph; workers {@link #take take} commands with no
 * unfinished predecessor and {@link #complete complete} them, which frees their successors.
 *
 * <p>Thread-safe: one lock guards the graph, so the scheduler and the workers contend for it, as in
 * CBASE (this contention and the per-insert scan are the overhead early scheduling avoids).
 * {@link #size()} and {@link #readyCount()} are racy views for waiting loops.
 */
final class DependencyGraph {
    private final ConflictTest conflicts;
    private final int capacity;
    private Node head;
    private Node tail;
    private Node readyHead;
    private Node readyTail;
    private volatile int size;
    private volatile int readyCount;
    /** Scratch for {@link #insert}: the nodes the new one conflicts with, found before any change. */
    private Node[] found = new Node[16];

    DependencyGraph(ConflictTest conflicts, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
        }
        this.conflicts = conflicts;
        this.capacity = capacity;
    }

    /** Whether {@link #insert} fits; only the scheduler inserts, so space only grows until it does. */
    boolean hasSpace() {
        return size < capacity;
    }

    int size() {
        return size;
    }

    int readyCount() {
        return readyCount;
    }

    /**
     * Scheduler: adds {@code node} after every node in the graph, with an edge from each node it
     * conflicts with. All conflict tests run before the graph changes, so a test that throws leaves
     * the graph as it was.
     *
     * @return whether the node is ready at once
     * @throws RuntimeException whatever the conflict test throws; {@code node} was not added
     */
    synchronized boolean insert(Node node) {
        int count = 0;
        for (Node m = head; m != null; m = m.next) {
            if (conflicts.conflict(m, node)) {
                if (count == found.length) {
                    found = java.util.Arrays.copyOf(found, count * 2);
                }
                found[count++] = m;
            }
        }
        for (int i = 0; i < count; i++) {
            found[i].addSuccessor(node);
            found[i] = null;
        }
        node.pending = count;
        node.prev = tail;
        if (tail == null) {
            head = node;
        } else {
            tail.next = node;
        }
        tail = node;
        size++;
        if (node.pending == 0) {
            enqueueReady(node);
            return true;
        }
        return false;
    }

    /** Worker: the oldest ready node, or {@code null}. */
    synchronized Node take() {
        Node n = readyHead;
        if (n == null) {
            return null;
        }
        readyHead = n.nextReady;
        if (readyHead == null) {
            readyTail = null;
        }
        n.nextReady = null;
        readyCount--;
        return n;
    }

    /**
     * Worker: removes a node that finished executing and makes successors whose last predecessor it
     * was ready.
     *
     * @return the number of nodes that became ready
     */
    synchronized int complete(Node node) {
        Node p = node.prev;
        Node n = node.next;
        if (p == null) {
            head = n;
        } else {
            p.next = n;
        }
        if (n == null) {
            tail = p;
        } else {
            n.prev = p;
        }
        node.prev = null;
        node.next = null;
        size--;
        int freed = 0;
        for (int i = 0; i < node.successorCount; i++) {
            Node s = node.successors[i];
            if (--s.pending == 0) {
                enqueueReady(s);
                freed++;
            }
        }
        return freed;
    }

    private void enqueueReady(Node n) {
        if (readyTail == null) {
            readyHead = n;
        } else {
            readyTail.nextReady = n;
        }
        readyTail = n;
        readyCount++;
    }

    /** A command in the graph. Guarded by the graph's lock, except {@link #command}, which is final. */
    static final class Node {
        final Command command;
        final int cls;
        Node prev;
        Node next;
        Node nextReady;
        int pending;
        Node[] successors;
        int successorCount;

        Node(Command command, int cls) {
            this.command = command;
            this.cls = cls;
        }

        void addSuccessor(Node s) {
            if (successors == null) {
                successors = new Node[4];
            } else if (successorCount == successors.length) {
                successors = java.util.Arrays.copyOf(successors, successorCount * 2);
            }
            successors[successorCount++] = s;
        }
    }

    /** Decides whether an earlier node and a later one conflict. */
    @FunctionalInterface
    interface ConflictTest {
        boolean conflict(Node earlier, Node later);
    }
}
