package io.psiflink.jobs;

import io.psiflink.api.CommandLineSyntax;
import io.psiflink.api.PartyConfiguration;
import io.psiflink.api.PartyFailure;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.UsageException;
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
    if (CommandLineSyntax.wantsHelp(args)) {
      System.out.print(PartyConfiguration.usage());
      System.exit(0);
      return;
    }
    PartyConfig cfg;
    Path summaryFile;
    try {
      PartyConfiguration c = PartyConfiguration.parse(args);
      summaryFile = c.get(PartyOptions.SUMMARY);
      cfg = PartyConfig.of(c);
    } catch (IllegalArgumentException e) {
      System.err.println(
          PartyFailure.commandLineLine(
              e.getMessage() + (e instanceof UsageException ? " (--help lists the options)" : "")));
      System.exit(2);
      return;
    }
    try {
      JobSummary s = PrivateJoinJob.run(cfg);
      System.out.println(s.describe());
      if (summaryFile != null) {
        Files.writeString(summaryFile, s.toJson(), StandardCharsets.UTF_8);
      }
      System.exit(0);
    } catch (Throwable t) {
      // the work directory holds the spill only where the job runs embedded (as in flinkConfig)
      String spill =
          org.apache.flink.streaming.api.environment.StreamExecutionEnvironment
                  .areExplicitEnvironmentsAllowed()
              ? cfg.workDir()
              : null;
      System.err.println(PartyFailure.line(cfg.party(), Errors.explain(t, spill)));
      org.slf4j.LoggerFactory.getLogger(PartyMain.class).error("party {} failed", cfg.party(), t);
      System.exit(1);
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
