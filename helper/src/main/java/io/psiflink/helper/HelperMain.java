package io.psiflink.helper;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code HelperMain CONFIG.yaml} ({@code ./psi helper CONFIG.yaml}): runs a {@link HelperService}
 * until SIGTERM or SIGINT, then ends its sessions ("helper shutting down") and exits (status 143
 * after SIGTERM). A bad config or unusable credentials: one line on stderr naming the cause, exit
 * 2; relay unreachable at start: exit 1.
 */
public final class HelperMain {
  private HelperMain() {}

  public static void main(String[] args) throws InterruptedException {
    // before the first logger: the helper's own console layout, unless the operator chose one (a
    // resource of its own name, so it cannot shadow another module's log4j2.properties)
    if (System.getProperty("log4j2.configurationFile") == null) {
      System.setProperty(
          "log4j2.configurationFile", "classpath:io/psiflink/helper/helper-log4j2.properties");
    }
    // log4j's own shutdown hook would race ours and swallow the last lines of a SIGTERM
    if (System.getProperty("log4j2.shutdownHookEnabled") == null) {
      System.setProperty("log4j2.shutdownHookEnabled", "false");
    }
    if (args.length != 1 || args[0].equals("--help") || args[0].equals("-h")) {
      System.err.println(
          "usage: psi helper CONFIG.yaml   (docs/operations.md, \"Running a helper\")");
      System.exit(args.length == 1 ? 0 : 2);
      return;
    }
    HelperConfig config;
    try {
      config = HelperConfig.load(Path.of(args[0]));
    } catch (IllegalArgumentException | IOException e) {
      System.err.println("psi helper: " + args[0] + ": " + e.getMessage());
      System.exit(2);
      return;
    }
    // the hook first: a SIGTERM right after the service announced itself must still close it
    AtomicReference<HelperService> running = new AtomicReference<>();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try { // a start under way (it logs before it returns) gets a moment to finish
                    started.await(5, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  HelperService s = running.get();
                  if (s != null) {
                    s.close();
                  }
                  stopped.countDown();
                },
                "psi-helper-shutdown"));
    try {
      running.set(HelperService.start(config));
      started.countDown();
    } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
      started.countDown();
      System.err.println("psi helper: " + e.getMessage());
      System.exit(2);
      return;
    } catch (io.psiflink.bridge.BridgeException e) {
      started.countDown();
      System.err.println("psi helper: " + e.getMessage());
      System.exit(1);
      return;
    }
    stopped.await();
  }
}
