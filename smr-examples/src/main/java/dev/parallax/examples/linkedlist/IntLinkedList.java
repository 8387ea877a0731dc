package dev.parallax.examples.linkedlist;

/**
 * A singly linked list of distinct ints, appended at the tail: the per-shard structure of seed
 * 001's benchmark application (§5.2), whose length sets a command's cost (1K, 10K or 100K elements
 * for light, moderate and heavy commands, §5.4).
 *
 * <p>Not thread-safe for writes: several threads may call {@link #contains} at once only while no
 * thread calls {@link #addIfAbsent} or {@link #clear}, which the class map guarantees (reads of a
 * shard are CONC, writes SEQ).
 */
final class IntLinkedList {
    private Node head;
    private Node tail;
    private int size;

    /** Whether {@code value} is in the list; walks it from the head. */
    boolean contains(int value) {
        for (Node n = head; n != null; n = n.next) {
            if (n.value == value) {
                return true;
            }
        }
        return false;
    }

    /** Appends {@code value} unless present. @return whether it was added */
    boolean addIfAbsent(int value) {
        if (contains(value)) {
            return false;
        }
        append(value);
        return true;
    }

    /** Appends {@code value}; the caller knows it is absent (initial fill, restore). */
    void append(int value) {
        Node n = new Node(value);
        if (tail == null) {
            head = n;
        } else {
            tail.next = n;
        }
        tail = n;
        size++;
    }

    int size() {
        return size;
    }

    void clear() {
        head = null;
        tail = null;
        size = 0;
    }

    /** The elements from head to tail. */
    int[] toArray() {
        int[] out = new int[size];
        int i = 0;
        for (Node n = head; n != null; n = n.next) {
            out[i++] = n.value;
        }
        return out;
    }

    private static final class Node {
        final int value;
        Node next;

        Node(int value) {
            this.value = value;
        }
    }
}
