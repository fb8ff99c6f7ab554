package io.psiflink.jobs.psi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.util.function.ThrowingRunnable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The bins' exchange runs off the mailbox thread: while it is under way the mailbox thread keeps
 * running other mail, and the wait ends when the work completes (no sleep, no poll interval).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MailboxWaitTest {
  /** A mailbox as Flink's: mail runs on the thread that yields, in order. */
  private static final class Mailbox implements MailboxExecutor {
    final BlockingQueue<ThrowingRunnable<? extends Exception>> mails = new LinkedBlockingQueue<>();
    int yields;

    @Override
    public void execute(
        MailOptions options,
        ThrowingRunnable<? extends Exception> command,
        String description,
        Object... args) {
      mails.add(command);
    }

    @Override
    public void yield() throws InterruptedException {
      yields++;
      try {
        mails.take().run();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public boolean tryYield() {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean shouldInterrupt() {
      return false;
    }
  }

  @Test
  void otherMailRunsWhileTheWorkIsUnderWay() throws Exception {
    Mailbox mailbox = new Mailbox();
    Thread mailboxThread = Thread.currentThread();
    List<String> ranOn = new CopyOnWriteArrayList<>();
    CountDownLatch otherMailRan = new CountDownLatch(1);
    CompletableFuture<String> work =
        CompletableFuture.supplyAsync(
            () -> {
              // a checkpoint or a cancellation arrives while the bin is exchanged
              mailbox.execute(
                  () -> {
                    ranOn.add(Thread.currentThread() == mailboxThread ? "mailbox" : "other");
                    otherMailRan.countDown();
                  },
                  "other mail");
              try {
                // the work finishes only once the mailbox thread has run the other mail: it was not
                // blocked
                assertTrue(otherMailRan.await(10, TimeUnit.SECONDS));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
              return "bin done";
            });
    assertEquals("bin done", MailboxWait.await(mailbox, work));
    assertEquals(List.of("mailbox"), ranOn);
    // the other mail ran through a yield; the completion's mail may find the work already done
    assertTrue(mailbox.yields >= 1, "yielded for the other mail");
  }

  @Test
  void theWorksFailureIsRethrownAsIs() {
    Mailbox mailbox = new Mailbox();
    PeerProtocolException cause = new PeerProtocolException("peer sent nonsense");
    CompletableFuture<String> work =
        CompletableFuture.supplyAsync(
            () -> {
              throw new CompletionException(cause);
            });
    assertSame(
        cause, assertThrows(PeerProtocolException.class, () -> MailboxWait.await(mailbox, work)));
  }

  @Test
  void completedWorkNeedsNoYield() throws Exception {
    Mailbox mailbox = new Mailbox();
    assertEquals(7, MailboxWait.await(mailbox, CompletableFuture.completedFuture(7)));
    assertEquals(0, mailbox.yields);
  }
}
