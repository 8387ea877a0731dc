package dev.parallax.core.testkit;

/**
 * Creates a node's volatile state at its first start and after each crash. Called only from the
 * simulation's single thread; must not block.
 */
@FunctionalInterface
public interface NodeFactory<M> {
    SimNode<M> create(NodeContext<M> context);
}
