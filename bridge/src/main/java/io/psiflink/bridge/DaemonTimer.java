package io.psiflink.bridge;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * A one-thread scheduler for timeouts. Cancelled tasks leave the queue at once: most pair timers
 * are cancelled.
 */
final class DaemonTimer {
  private DaemonTimer() {}

  static ScheduledExecutorService create(String threadName) {
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }
}
