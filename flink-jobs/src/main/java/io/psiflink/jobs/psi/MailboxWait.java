package io.psiflink.jobs.psi;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.flink.api.common.operators.MailboxExecutor;

/**
 * Waits for work done on another thread from a task's mailbox thread without blocking it: the
 * thread runs other mail (cancellation, checkpoints, timers) meanwhile, and the work's completion
 * posts a mail that ends the wait. Flink's idiom for an operator that must not sleep in its mailbox
 * thread (as {@code AsyncWaitOperator} waits for its in-flight requests).
 */
final class MailboxWait {
  private MailboxWait() {}

  /**
   * Yields to {@code mailbox} until {@code f} completes; returns its value or rethrows its failure
   * as is (an {@link Exception} thrown by the work, unwrapped).
   */
  static <T> T await(MailboxExecutor mailbox, CompletableFuture<T> f) throws Exception {
    f.whenComplete((v, e) -> mailbox.execute(() -> {}, "work off the mailbox thread completed"));
    while (!f.isDone()) {
      mailbox.yield();
    }
    try {
      return f.get();
    } catch (ExecutionException e) {
      Throwable c =
          e.getCause() instanceof CompletionException ce && ce.getCause() != null
              ? ce.getCause()
              : e.getCause();
      if (c instanceof Exception ex) {
        throw ex;
      }
      throw e;
    }
  }
}
