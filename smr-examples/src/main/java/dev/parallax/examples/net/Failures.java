package dev.parallax.examples.net;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** What a failed future reports, without the wrappers. Stateless and thread-safe. */
public final class Failures {
    private Failures() {
    }

    /**
     * The cause under any {@link CompletionException} / {@link ExecutionException} wrappers (a
     * wrapper without a cause is returned as it is); null stays null.
     */
    public static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
