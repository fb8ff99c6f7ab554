package io.psiflink.jobs;

import io.psiflink.api.CommandLineSyntax;
import io.psiflink.api.PartyConfiguration;
import io.psiflink.api.PartyFailure;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.UsageException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs one party's private join job: {@code PartyMain --party A|B --table PATH --sql SQL ...} (the
 * options are {@link PartyOptions}; {@code --help} prints them). On a laptop the job runs on an
 * embedded Flink MiniCluster; inside {@code flink run} on the cluster. Prints a summary; exits 1
 * with the cause in plain words when the join fails, 2 when the command line is wrong.
 */
public final class PartyMain {
  private PartyMain() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the party as {@link #main} does, writing to {@code out} and {@code err} instead of the
   * console and returning the exit code instead of exiting: 0 done, 1 the join failed (the cause in
   * one line on {@code err}), 2 a wrong command line. {@code ./psi local} runs both parties of a
   * small join this way, on threads of its own JVM.
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    return run(args, out, err, null);
  }

  /**
   * {@link #run(String[], PrintStream, PrintStream)} on a cluster shared with the peer's job in
   * this JVM (null: the one of its own its job starts).
   */
  public static int run(
      String[] args, PrintStream out, PrintStream err, SharedMiniCluster cluster) {
    if (CommandLineSyntax.wantsHelp(args)) {
      out.print(PartyConfiguration.usage());
      return 0;
    }
    PartyConfig cfg;
    Path summaryFile;
    try {
      PartyConfiguration c = PartyConfiguration.parse(args);
      summaryFile = c.get(PartyOptions.SUMMARY);
      cfg = PartyConfig.of(c);
    } catch (IllegalArgumentException e) {
      err.println(
          PartyFailure.commandLineLine(
              e.getMessage() + (e instanceof UsageException ? " (--help lists the options)" : "")));
      return 2;
    }
    try {
      JobSummary s = PrivateJoinJob.run(cfg, cluster);
      out.println(s.describe());
      if (summaryFile != null) {
        Files.writeString(summaryFile, s.toJson(), StandardCharsets.UTF_8);
      }
      return 0;
    } catch (Throwable t) {
      // the work directory holds the spill only where the job runs embedded (as in flinkConfig);
      // on a shared cluster the run's, which holds both parties'
      String spill =
          cluster != null
              ? cluster.workDir().toString()
              : org.apache.flink.streaming.api.environment.StreamExecutionEnvironment
                      .areExplicitEnvironmentsAllowed()
                  ? cfg.workDir()
                  : null;
      err.println(PartyFailure.line(cfg.party(), Errors.explain(t, spill)));
      org.slf4j.LoggerFactory.getLogger(PartyMain.class).error("party {} failed", cfg.party(), t);
      return 1;
    }
  }

  /**
   * The job's configuration from options as on its command line, without the dashes ({@code
   * "insecure-test-only" -> "true"} for the flag): for tests and tools that hold options in a map.
   */
  static PartyConfig config(Map<String, String> options) {
    List<String> args = new ArrayList<>();
    options.forEach(
        (k, v) -> {
          if (k.equals(PartyOptions.INSECURE_TEST_ONLY.name())) {
            if (!v.equals("true")) {
              throw new IllegalArgumentException(PartyConfig.INSECURE_FLAG + " takes no value");
            }
            args.add("--" + k);
          } else {
            args.add("--" + k);
            args.add(v);
          }
        });
    return PartyConfig.of(PartyConfiguration.parse(args));
  }
}
