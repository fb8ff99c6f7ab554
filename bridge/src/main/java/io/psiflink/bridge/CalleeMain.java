package io.psiflink.bridge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The {@code main} of a service that parties call through the relay ({@code ./psi helper
 * CONFIG.yaml}, {@code ./psi provider CONFIG.yaml}): runs the service until SIGTERM or SIGINT, then
 * closes it (its sessions end, naming the shutdown) and exits (status 143 after SIGTERM). A bad
 * config or unusable credentials: one line on stderr naming the cause, exit 2; relay unreachable at
 * start: exit 1.
 */
public final class CalleeMain {
  private CalleeMain() {}

  /** Reads the service's config file. */
  @FunctionalInterface
  public interface Loader<C> {
    C load(Path file) throws IOException;
  }

  /** Starts the service: connected to the relay and listening when it returns. */
  @FunctionalInterface
  public interface Starter<C> {
    AutoCloseable start(C config) throws BridgeException;
  }

  /**
   * Runs the service of {@code args[0]}, a config file, until the JVM is told to stop.
   *
   * @param command the service's {@code ./psi} command, e.g. {@code helper}
   * @param log4jResource the service's own console layout on the class path, used unless the
   *     operator chose one (a resource of its own name, so it cannot shadow another module's)
   */
  public static <C> void run(
      String[] args, String command, String log4jResource, Loader<C> load, Starter<C> start)
      throws InterruptedException {
    // before the first logger is made
    if (System.getProperty("log4j2.configurationFile") == null) {
      System.setProperty("log4j2.configurationFile", "classpath:" + log4jResource);
    }
    // log4j's own shutdown hook would race ours and swallow the last lines of a SIGTERM
    if (System.getProperty("log4j2.shutdownHookEnabled") == null) {
      System.setProperty("log4j2.shutdownHookEnabled", "false");
    }
    String name = "psi " + command;
    if (args.length != 1 || args[0].equals("--help") || args[0].equals("-h")) {
      System.err.println(
          "usage: " + name + " CONFIG.yaml   (docs/operations.md, \"Running a " + command + "\")");
      System.exit(args.length == 1 ? 0 : 2);
      return;
    }
    C config;
    try {
      config = load.load(Path.of(args[0]));
    } catch (IllegalArgumentException | IOException e) {
      System.err.println(name + ": " + args[0] + ": " + e.getMessage());
      System.exit(2);
      return;
    }
    // the hook first: a SIGTERM right after the service announced itself must still close it
    AtomicReference<AutoCloseable> running = new AtomicReference<>();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try { // a start under way (it logs before it returns) gets a moment to finish
                    started.await(5, TimeUnit.SECONDS);
                    AutoCloseable s = running.get();
                    if (s != null) {
                      s.close();
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  } catch (Exception e) {
                    System.err.println(name + ": closing failed: " + e);
                  }
                  stopped.countDown();
                },
                "psi-" + command + "-shutdown"));
    try {
      running.set(start.start(config));
      started.countDown();
    } catch (IllegalArgumentException | UncheckedIOException e) {
      started.countDown();
      System.err.println(name + ": " + e.getMessage());
      System.exit(2);
      return;
    } catch (BridgeException e) {
      started.countDown();
      System.err.println(name + ": " + e.getMessage());
      System.exit(1);
      return;
    }
    stopped.await();
  }
}
