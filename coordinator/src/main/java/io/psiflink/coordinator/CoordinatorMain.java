package io.psiflink.coordinator;

import io.psiflink.coordinator.Tokens.Kind;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.TypeConversionException;

/**
 * Runs a coordinator, or makes an API token.
 *
 * <pre>
 * CoordinatorMain serve &lt;config.yaml&gt;
 * CoordinatorMain token party|peer &lt;label&gt;   # prints the token, then its tokens-file line
 * </pre>
 *
 * <p>The command line is picocli's; {@code --help} after either command describes it.
 */
public final class CoordinatorMain {
  private CoordinatorMain() {}

  @Command(
      name = "CoordinatorMain",
      description = "Runs a coordinator, or makes an API token.",
      synopsisSubcommandLabel = "serve | token")
  static final class Top {
    @Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "print this help and exit")
    boolean help;
  }

  /** {@code serve CONFIG.yaml} (also {@code ./psi serve}). */
  @Command(
      name = "serve",
      description = "Runs a party's coordinator until it is stopped (docs/coordinator.md).")
  public static final class Serve {
    @Parameters(paramLabel = "CONFIG.yaml", description = "the coordinator's configuration")
    Path config;

    @Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "print this help and exit")
    boolean help;

    public Path config() {
      return config;
    }
  }

  /** {@code token party|peer LABEL}. */
  @Command(
      name = "token",
      description = "Makes a new API token: prints it, then its line for the tokens file.")
  static final class Token {
    @Parameters(
        index = "0",
        paramLabel = "party|peer",
        converter = KindConverter.class,
        description = "party: a caller of this party's API; peer: the other party's coordinator")
    Kind kind;

    @Parameters(
        index = "1",
        paramLabel = "LABEL",
        description = "who holds the token, e.g. alice-analyst")
    String label;

    @Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "print this help and exit")
    boolean help;
  }

  /** {@code party} or {@code peer}, any case. */
  static final class KindConverter implements ITypeConverter<Kind> {
    @Override
    public Kind convert(String text) {
      try {
        return Kind.valueOf(text.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException("must be party or peer, not '" + text + "'");
      }
    }
  }

  static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Top());
    cl.addSubcommand("serve", new Serve());
    cl.addSubcommand("token", new Token());
    cl.setExpandAtFiles(false);
    cl.setUsageHelpWidth(100);
    return cl;
  }

  /**
   * Parses a command line.
   *
   * @return the command's object ({@link Serve} or {@link Token}), or the top one when no command
   *     was given
   * @throws ParameterException naming what is unknown, missing or malformed
   */
  static Object parse(String... args) {
    ParseResult r = commandLine().parseArgs(args);
    while (r.hasSubcommand()) {
      r = r.subcommand();
    }
    return r.commandSpec().userObject();
  }

  public static void main(String[] args) throws Exception {
    CommandLine cl = commandLine();
    ParseResult r;
    try {
      r = cl.parseArgs(args);
    } catch (ParameterException e) {
      String synopsis = e.getCommandLine().getHelp().synopsis(0).replaceAll("\\s+", " ").trim();
      System.err.println(
          "CoordinatorMain: "
              + e.getMessage()
              + " (usage: "
              + synopsis
              + "; --help lists the options)");
      System.exit(2);
      return;
    }
    if (CommandLine.printHelpIfRequested(
        r.asCommandLineList(), System.out, System.err, CommandLine.Help.Ansi.OFF)) {
      return;
    }
    if (!r.hasSubcommand()) {
      System.err.print(cl.getUsageMessage(CommandLine.Help.Ansi.OFF));
      System.exit(2);
      return;
    }
    Object command = r.subcommand().commandSpec().userObject();
    if (command instanceof Serve s) {
      serve(s.config(), System.out);
    } else if (command instanceof Token t) {
      String token = Tokens.newToken();
      System.out.println("token: " + token);
      System.out.println("tokens-file line: " + Tokens.line(token, t.kind, t.label));
    }
  }

  /** Runs a coordinator with the configuration at {@code config} until it is stopped. */
  public static void serve(Path config, PrintStream out) throws Exception {
    CoordinatorConfig c = CoordinatorConfig.load(config);
    CoordinatorServer server = CoordinatorServer.start(c);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    server.close();
                  } catch (Exception e) {
                    System.err.println("coordinator: error while stopping: " + e.getMessage());
                  }
                },
                "coordinator-shutdown"));
    out.println(
        "coordinator of "
            + c.party()
            + " listening on https://"
            + c.listen().host()
            + ":"
            + server.port());
    server.join();
  }
}
