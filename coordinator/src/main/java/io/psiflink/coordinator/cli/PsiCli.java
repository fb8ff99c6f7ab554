package io.psiflink.coordinator.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psiflink.api.JoinMode;
import io.psiflink.api.OutputFormat;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.Prefilter;
import io.psiflink.api.Role;
import io.psiflink.coordinator.CoordinatorMain;
import io.psiflink.coordinator.cli.ApiClient.ApiError;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code ./psi serve | submit | approve | reject | status | cancel | resume | result}: runs a
 * coordinator, or talks to a running one over HTTPS with a party token. The command line is
 * picocli's, one subcommand per command, each with its generated {@code --help}.
 *
 * <p>{@code submit} with three or more {@code --party ORG=DATASET} submits an n-party query ({@code
 * /v1/group-queries}); the other commands take the id of a two-party or an n-party query or
 * session: they make the two-party call, and on its 404 the n-party one if the id is an n-party
 * object at this coordinator.
 */
public final class PsiCli {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

  // the resources an id is looked up under: two-party sessions, n-party queries and sessions
  private static final String SESSIONS = "/v1/sessions/";
  private static final String GROUP_QUERIES = "/v1/group-queries/";
  private static final String GROUP_SESSIONS = "/v1/group-sessions/";

  /** Where a client command finds its coordinator; each falls back to an environment variable. */
  static final class Connection {
    @Option(
        names = "--coordinator",
        paramLabel = "URL",
        description =
            "the coordinator, e.g. https://alice.example:8443 (default: env PSI_COORDINATOR)")
    URI coordinator;

    @Option(
        names = "--token-file",
        paramLabel = "FILE",
        description = "a file with a party token (default: env PSI_TOKEN with the token itself)")
    Path tokenFile;

    @Option(
        names = "--ca",
        paramLabel = "PEM",
        description =
            "the CA of the coordinator's "
                + "certificate (default: env PSI_CA, else the JVM's trust store)")
    Path ca;
  }

  @Command(
      name = "./psi",
      description =
          "Runs a coordinator, or talks to a running one over "
              + "HTTPS with a party token. `./psi COMMAND --help` describes a command.",
      synopsisSubcommandLabel = "COMMAND")
  static final class Top {
    @Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "print this help and exit")
    boolean help;
  }

  /**
   * {@code ./psi submit}: a new query at this party's coordinator, of two parties ({@code --dataset
   * --peer-dataset}) or of three or more ({@code --party} each, {@link #check} tells them apart).
   */
  @Command(
      name = "submit",
      description = {
        "Submits a query to your coordinator; the peer's approver decides on it.",
        "With three or more --party ORG=DATASET, an n-party query: you are P1 (the first --party,"
            + " the query's first table) and receive the joined table; every other party's"
            + " approver decides on it."
      },
      // the two forms; picocli's own synopsis would show --dataset and --peer-dataset optional
      customSynopsis = {
        "./psi submit --dataset D --peer-dataset P --sql SQL [OPTIONS]",
        "       ./psi submit --party ORG=DATASET --party ORG=DATASET --party ORG=DATASET..."
            + " --sql SQL",
        "                    --provider NAME [--output DIR] [--format avro|csv] [--bins M]"
            + " [--sigma S]",
        "                    [--wait]"
      })
  static final class Submit {
    /** The options of a two-party query only, refused with {@code --party}. */
    static final List<String> TWO_PARTY_ONLY =
        List.of(
            "--dataset",
            "--peer-dataset",
            "--role",
            "--protocol",
            "--mode",
            "--label-bytes",
            "--prefilter",
            "--helper",
            "--filter-bits",
            "--filter-hashes",
            "--expected-overlap");

    @Option(
        names = "--dataset",
        paramLabel = "D",
        description = "your registered dataset (a two-party query: required)")
    String dataset;

    @Option(
        names = "--peer-dataset",
        paramLabel = "P",
        description = "the peer's registered dataset (a two-party query: required)")
    String peerDataset;

    @Option(
        names = "--party",
        paramLabel = "ORG=DATASET",
        converter = PartyConverter.class,
        description =
            "an n-party query: a party and its dataset, one per table of the query's FROM in that"
                + " order, three or more; the first is you (P1)")
    List<PartyArg> parties;

    @Option(
        names = "--provider",
        paramLabel = "NAME",
        description =
            "an n-party query: the outsourcing provider, one every party's coordinator registered"
                + " (GET /v1/providers); required with --party")
    String provider;

    @Option(
        names = "--sql",
        required = true,
        paramLabel = "SQL",
        description = "the join: SELECT ... FROM a JOIN b ON ... [WHERE ...]")
    String sql;

    @Option(
        names = "--role",
        paramLabel = "A|B",
        converter = RoleConverter.class,
        description =
            "the party your dataset plays: A (table a, gets the joined table) or B "
                + "(default: the coordinator's)")
    Role role;

    @Option(
        names = {"--output", "--out"},
        paramLabel = "DIR",
        description =
            "where party A (P1 of an n-party query) writes the joined table: a path, made absolute"
                + " here, or a URI such as hdfs://nn/psi/out, passed as it is")
    String output;

    @Option(
        names = "--format",
        paramLabel = "avro|csv",
        converter = FormatConverter.class,
        description = "the joined table's format")
    OutputFormat format;

    @Option(names = "--bins", paramLabel = "M", description = "the job's bins")
    Integer bins;

    @Option(
        names = "--sigma",
        paramLabel = "S",
        description = "the job's statistical security parameter")
    Integer sigma;

    @Option(
        names = "--protocol",
        paramLabel = "P",
        description = "the PSI protocol, one the coordinators offer")
    String protocol;

    @Option(
        names = "--mode",
        paramLabel = "both|labeled",
        converter = ModeConverter.class,
        description =
            "who learns the intersection: both parties (default), or only A (labeled: B learns"
                + " nothing of it)")
    JoinMode mode;

    @Option(
        names = "--label-bytes",
        paramLabel = "N",
        description =
            "labeled mode: the public size every key's rows from B are padded to (default "
                + PartyOptions.DEFAULT_LABEL_BYTES
                + ")")
    Integer labelBytes;

    @Option(
        names = "--prefilter",
        paramLabel = "none|helper|auto",
        converter = PrefilterConverter.class,
        description =
            "helper: a helper both coordinators registered pre-filters both tables (a server-aided"
                + " sample filter), and the PSI runs on the candidates only; auto: the same if the"
                + " jobs' cost model expects it to save time; none (default)")
    Prefilter prefilter;

    @Option(
        names = "--helper",
        paramLabel = "NAME",
        description =
            "prefilter helper: the helper, one both coordinators registered (GET /v1/helpers)")
    String helper;

    @Option(
        names = "--filter-bits",
        paramLabel = "L",
        description =
            "prefilter helper: the Bloom filter has 2^L bits ("
                + PartyOptions.FILTER_BITS_MIN
                + " to "
                + PartyOptions.FILTER_BITS_MAX
                + "); default: chosen by the jobs")
    Integer filterBits;

    @Option(
        names = "--filter-hashes",
        paramLabel = "K",
        description =
            "prefilter helper: hash functions per key (1 to "
                + PartyOptions.FILTER_HASHES_MAX
                + "); default: chosen by the jobs")
    Integer filterHashes;

    @Option(
        names = "--expected-overlap",
        paramLabel = "F",
        description =
            "prefilter auto: the share (0 to 1) of the smaller table's keys expected in common;"
                + " default 1 (all may be)")
    Double expectedOverlap;

    @Option(names = "--wait", description = "follow the query until its session ends")
    boolean await;

    @Mixin Connection connection = new Connection();

    @Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "print this help and exit")
    boolean help;

    /** The parties of an n-party query, in order; empty for a two-party one. */
    List<PartyArg> parties() {
      return parties == null ? List.of() : List.copyOf(parties);
    }

    boolean group() {
      return !parties().isEmpty();
    }

    /**
     * Refuses a command line that is neither form: picocli cannot require an option of one form
     * only, so the forms are told apart here, each naming what to give or drop.
     *
     * @param r the parse result of this command
     * @throws ParameterException naming the option
     */
    void check(ParseResult r) {
      CommandLine cl = r.commandSpec().commandLine();
      if (!group()) {
        if (provider != null) {
          throw new ParameterException(
              cl,
              "--provider is the provider of an n-party query, which names its parties with"
                  + " three or more --party ORG=DATASET");
        }
        if (dataset == null) {
          throw new ParameterException(
              cl,
              "Missing required option: '--dataset=D' (or, for an n-party query, three or more"
                  + " --party ORG=DATASET)");
        }
        if (peerDataset == null) {
          throw new ParameterException(
              cl,
              "Missing required option: '--peer-dataset=P' (or, for an n-party query, three or"
                  + " more --party ORG=DATASET)");
        }
        return;
      }
      List<String> given = TWO_PARTY_ONLY.stream().filter(r::hasMatchedOption).toList();
      if (!given.isEmpty()) {
        throw new ParameterException(
            cl,
            "--party (an n-party query) does not take "
                + String.join(", ", given)
                + ": "
                + (given.size() == 1 ? "it is an option" : "they are options")
                + " of a two-party query (--dataset, --peer-dataset)");
      }
      if (parties().size() < 3) {
        throw new ParameterException(
            cl,
            "--party: an n-party query names three or more parties, one --party ORG=DATASET per"
                + " table of the query's FROM, you first (a query of two parties takes --dataset"
                + " and --peer-dataset)");
      }
      if (provider == null) {
        throw new ParameterException(
            cl,
            "Missing required option: '--provider=NAME' (an n-party query's outsourcing"
                + " provider, GET /v1/providers)");
      }
    }
  }

  /** {@code --party ORG=DATASET}: a party of an n-party query and its dataset. */
  record PartyArg(String party, String dataset) {}

  /** {@code --party}: ORG=DATASET, split at the first {@code =}. */
  static final class PartyConverter implements ITypeConverter<PartyArg> {
    @Override
    public PartyArg convert(String text) {
      int eq = text.indexOf('=');
      if (eq <= 0 || eq == text.length() - 1) {
        throw new TypeConversionException("must be ORG=DATASET, not '" + text + "'");
      }
      return new PartyArg(text.substring(0, eq), text.substring(eq + 1));
    }
  }

  /** {@code ./psi approve} and {@code ./psi reject}: this party's decision on a query. */
  static class Decide {
    @Parameters(
        paramLabel = "QUERY_ID",
        description = "the query another party submitted (two-party or n-party)")
    String queryId;

    @Option(names = "--reason", paramLabel = "TEXT", description = "why, for the other party")
    String reason;

    @Mixin Connection connection = new Connection();

    @Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "print this help and exit")
    boolean help;
  }

  @Command(
      name = "approve",
      description =
          "Approves a query another party submitted; its session's jobs start (an n-party"
              + " query's once every party approved).")
  static final class Approve extends Decide {
    @Option(
        names = "--wait",
        description =
            "follow the session until it ends (an n-party query: first wait for the other"
                + " parties' decisions)")
    boolean await;
  }

  @Command(
      name = "reject",
      description =
          "Rejects a query another party submitted (an n-party query ends for every party).")
  static final class Reject extends Decide {}

  /** A command about one query or session. */
  static class ById {
    @Mixin Connection connection = new Connection();

    @Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "print this help and exit")
    boolean help;
  }

  @Command(
      name = "status",
      description =
          "A query's or session's status, phase and bins done/total (two-party or n-party).")
  static final class Status extends ById {
    @Parameters(paramLabel = "ID", description = "a query or a session id")
    String id;

    @Option(names = "--json", description = "print the coordinator's JSON")
    boolean json;
  }

  @Command(
      name = "cancel",
      description =
          "Stops a session's jobs (yours, and through your coordinator the peer's; of an n-party"
              + " session every party's, through P1's coordinator).")
  static final class Cancel extends ById {
    @Parameters(paramLabel = "SESSION_ID", description = "the session")
    String sessionId;
  }

  @Command(
      name = "resume",
      description =
          "Resumes a failed two-party session where it stopped: both coordinators create it again"
              + " and its jobs skip the bins party A's job committed (docs/operations.md).")
  static final class Resume extends ById {
    @Parameters(paramLabel = "SESSION_ID", description = "the session")
    String sessionId;
  }

  @Command(
      name = "result",
      description =
          "Where the joined table is (party A, or P1 of an n-party query, after success).")
  static final class Result extends ById {
    @Parameters(paramLabel = "SESSION_ID", description = "the session")
    String sessionId;

    @Option(names = "--json", description = "print the coordinator's JSON")
    boolean json;
  }

  /** {@code --role}: a party of a two-party join. */
  static final class RoleConverter implements ITypeConverter<Role> {
    @Override
    public Role convert(String text) {
      try {
        return Role.twoParty(text);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** {@code --prefilter}: none, helper or auto (Prefilter's words). */
  static final class PrefilterConverter implements ITypeConverter<Prefilter> {
    @Override
    public Prefilter convert(String text) {
      try {
        return Prefilter.parse(text);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** {@code --mode}: both or labeled (JoinMode's words). */
  static final class ModeConverter implements ITypeConverter<JoinMode> {
    @Override
    public JoinMode convert(String text) {
      try {
        return JoinMode.parse(text);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** {@code --format}: the joined table's format, one a coordinator's output accepts. */
  static final class FormatConverter implements ITypeConverter<OutputFormat> {
    @Override
    public OutputFormat convert(String text) {
      OutputFormat f;
      try {
        f = OutputFormat.parse(text);
      } catch (IllegalArgumentException e) {
        f = null;
      }
      if (f != OutputFormat.AVRO && f != OutputFormat.CSV) {
        throw new TypeConversionException("must be avro or csv, not '" + text + "'");
      }
      return f;
    }
  }

  private final PrintStream out;
  private final PrintStream err;
  private final Map<String, String> env;

  public PsiCli(PrintStream out, PrintStream err, Map<String, String> env) {
    this.out = out;
    this.err = err;
    this.env = env;
  }

  public static void main(String[] args) throws Exception {
    System.exit(new PsiCli(System.out, System.err, System.getenv()).run(args));
  }

  /** The command line of {@code ./psi}'s coordinator commands: one subcommand each. */
  static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Top());
    cl.addSubcommand("serve", new CoordinatorMain.Serve());
    cl.addSubcommand("submit", new Submit());
    cl.addSubcommand("approve", new Approve());
    cl.addSubcommand("reject", new Reject());
    cl.addSubcommand("status", new Status());
    cl.addSubcommand("cancel", new Cancel());
    cl.addSubcommand("resume", new Resume());
    cl.addSubcommand("result", new Result());
    cl.addSubcommand("help", new HelpCommand());
    // a SQL text or a reason starting with @ is a value, not a file of arguments
    cl.setExpandAtFiles(false);
    // every option takes one value, so the text after it is that value even when it looks like an
    // option; the last of a repeated option wins, as before picocli
    cl.setAllowOptionsAsOptionParameters(true);
    cl.setOverwrittenOptionsAllowed(true);
    cl.setUsageHelpWidth(100);
    // the help lists the options in the order declared: the command's own, then the connection
    for (CommandLine c : cl.getSubcommands().values()) {
      c.getCommandSpec().usageMessage().sortOptions(false).sortSynopsis(false);
    }
    return cl;
  }

  /**
   * Parses a command line: the command object with its values, or the exception naming what is
   * wrong.
   *
   * @return the innermost command's object ({@link Submit}, {@link Approve}, ...)
   * @throws ParameterException naming the unknown, missing or malformed option or argument
   */
  static Object parse(String... argv) {
    ParseResult r = commandLine().parseArgs(argv);
    while (r.hasSubcommand()) {
      r = r.subcommand();
    }
    if (r.commandSpec().userObject() instanceof Submit s) {
      s.check(r);
    }
    return r.commandSpec().userObject();
  }

  /** Runs one command; returns the exit code (0 ok, 1 failed, 2 usage). */
  public int run(String[] argv) {
    CommandLine cl = commandLine();
    if (argv.length == 0) {
      out.print(cl.getUsageMessage(CommandLine.Help.Ansi.OFF));
      return 2;
    }
    String cmd = argv[0];
    ParseResult r;
    try {
      r = cl.parseArgs(argv);
    } catch (ParameterException e) {
      return usageError(cl, cmd, e);
    }
    if (CommandLine.printHelpIfRequested(
        r.asCommandLineList(), out, err, CommandLine.Help.Ansi.OFF)) {
      return 0;
    }
    if (!r.hasSubcommand()) {
      out.print(cl.getUsageMessage(CommandLine.Help.Ansi.OFF));
      return 2;
    }
    Object command = r.subcommand().commandSpec().userObject();
    if (command instanceof Submit s) {
      try {
        s.check(r.subcommand());
      } catch (ParameterException e) {
        return usageError(cl, cmd, e);
      }
    }
    try {
      if (command instanceof CoordinatorMain.Serve s) {
        CoordinatorMain.serve(s.config(), out);
        return 0;
      }
      if (command instanceof Submit s) {
        return submit(s);
      }
      if (command instanceof Approve a) {
        return decide(a, a.connection, true, a.await);
      }
      if (command instanceof Reject d) {
        return decide(d, d.connection, false, false);
      }
      if (command instanceof Status s) {
        return status(s);
      }
      if (command instanceof Cancel c) {
        return cancel(c);
      }
      if (command instanceof Resume rs) {
        printSession(client(rs.connection).post(SESSIONS + rs.sessionId + "/resume", null));
        return 0;
      }
      if (command instanceof Result res) {
        return result(res);
      }
      throw new IllegalStateException("no handler for " + command.getClass());
    } catch (IllegalArgumentException e) {
      err.println("psi " + cmd + ": " + e.getMessage());
      return 2;
    } catch (ApiError e) {
      err.println("psi " + cmd + ": " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    } catch (Exception e) {
      // e.g. ./psi serve with a configuration that does not load
      err.println("psi " + cmd + ": " + (e.getMessage() != null ? e.getMessage() : e));
      return 1;
    }
  }

  /** A wrong command line: one line naming what is wrong, with the command's synopsis; exit 2. */
  private int usageError(CommandLine cl, String cmd, ParameterException e) {
    CommandLine failed = e.getCommandLine();
    String synopsis = failed.getHelp().synopsis(0).replaceAll("\\s+", " ").trim();
    err.println(
        "psi "
            + (failed == cl ? cmd : failed.getCommandName())
            + ": "
            + e.getMessage()
            + " (usage: "
            + synopsis
            + "; --help lists the options)");
    return 2;
  }

  private ApiClient client(Connection a) {
    String url = a.coordinator != null ? a.coordinator.toString() : env.get("PSI_COORDINATOR");
    if (url == null || url.isBlank()) {
      throw new IllegalArgumentException(
          "which coordinator? give --coordinator URL or set PSI_COORDINATOR");
    }
    String token;
    if (a.tokenFile != null) {
      try {
        token = Files.readString(a.tokenFile, StandardCharsets.UTF_8).strip();
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "--token-file: cannot read the token file " + a.tokenFile + ": " + e.getMessage());
      }
    } else {
      token = env.get("PSI_TOKEN");
    }
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("no token: give --token-file FILE or set PSI_TOKEN");
    }
    Path ca = a.ca;
    if (ca == null) {
      String e = env.get("PSI_CA");
      ca = e == null || e.isBlank() ? null : Path.of(e);
    }
    return new ApiClient(url, token, ca);
  }

  private int submit(Submit a) throws ApiError, InterruptedException {
    if (a.group()) {
      return submitGroup(a);
    }
    ObjectNode q = ApiClient.JSON.createObjectNode();
    q.put("localDataset", required("--dataset", a.dataset));
    q.put("peerDataset", required("--peer-dataset", a.peerDataset));
    q.put("sql", required("--sql", a.sql));
    if (a.role != null) {
      q.put("role", a.role.label());
    }
    if (a.bins != null) {
      q.put("bins", a.bins);
    }
    if (a.sigma != null) {
      q.put("sigma", a.sigma);
    }
    if (a.protocol != null) {
      q.put("protocol", a.protocol);
    }
    if (a.mode != null) {
      q.put("mode", a.mode.text());
    }
    if (a.labelBytes != null) {
      // the coordinator refuses it with mode both, naming labelBytes
      q.put("labelBytes", a.labelBytes);
    }
    // the coordinator refuses a helper or filter parameter without prefilter helper, naming it
    if (a.prefilter != null) {
      q.put("prefilter", a.prefilter.text());
    }
    if (a.helper != null) {
      q.put("helper", a.helper);
    }
    if (a.filterBits != null) {
      q.put("filterBits", a.filterBits);
    }
    if (a.filterHashes != null) {
      q.put("filterHashes", a.filterHashes);
    }
    if (a.expectedOverlap != null) {
      q.put("expectedOverlap", a.expectedOverlap);
    }
    putOutput(q, a);
    ApiClient c = client(a.connection);
    JsonNode r = c.post("/v1/queries", q);
    String id = r.path("id").asText();
    out.println(
        "query "
            + id
            + " submitted: "
            + r.path("status").asText()
            + " (waiting for "
            + r.path("approver").asText()
            + " to approve)");
    printDisclosure(r);
    if (!a.await) {
      return 0;
    }
    JsonNode query = r;
    while (query.path("status").asText().equals("pending")) {
      Thread.sleep(1000);
      query = c.get("/v1/queries/" + id);
    }
    if (!query.path("status").asText().equals("approved")) {
      err.println(
          "psi submit: query " + id + " was " + query.path("status").asText() + reason(query));
      return 1;
    }
    return follow(c, query.path("session").path("id").asText());
  }

  /** The output of a query, if the command line gives one. */
  private static void putOutput(ObjectNode q, Submit a) {
    if (a.output != null || a.format != null) {
      ObjectNode o = q.putObject("output");
      if (a.output != null) {
        o.put("location", location(a.output));
      }
      if (a.format != null) {
        o.put("format", a.format.text());
      }
    }
  }

  /**
   * An output location as the coordinator needs it: a URI ({@code hdfs://nn/out}) as it is, a path
   * made absolute (the coordinator does not run in the caller's directory).
   */
  static String location(String text) {
    return text.matches("[A-Za-z][A-Za-z0-9+.-]*://.*")
        ? text
        : Path.of(text).toAbsolutePath().toString();
  }

  /** The body of {@code POST /v1/group-queries} for an n-party {@code submit}. */
  static ObjectNode groupRequest(Submit a) {
    ObjectNode q = ApiClient.JSON.createObjectNode();
    q.put("sql", required("--sql", a.sql));
    ArrayNode parties = q.putArray("parties");
    for (PartyArg p : a.parties()) {
      parties.addObject().put("party", p.party()).put("dataset", p.dataset());
    }
    q.put("provider", required("--provider", a.provider));
    if (a.bins != null) {
      q.put("bins", a.bins);
    }
    if (a.sigma != null) {
      q.put("sigma", a.sigma);
    }
    putOutput(q, a);
    return q;
  }

  private int submitGroup(Submit a) throws ApiError, InterruptedException {
    ApiClient c = client(a.connection);
    JsonNode r = c.post("/v1/group-queries", groupRequest(a));
    String id = r.path("id").asText();
    out.println(
        "query "
            + id
            + " submitted: "
            + r.path("status").asText()
            + " (waiting for "
            + String.join(", ", undecided(r))
            + " to approve)");
    printGroupDisclosure(r);
    if (!a.await) {
      return 0;
    }
    return followGroupQuery(c, awaitDecisions(c, r), "submit");
  }

  /** Polls an n-party query until it is no longer pending. */
  private static JsonNode awaitDecisions(ApiClient c, JsonNode query)
      throws ApiError, InterruptedException {
    JsonNode q = query;
    while (q.path("status").asText().equals("pending")) {
      Thread.sleep(1000);
      q = c.get(GROUP_QUERIES + q.path("id").asText());
    }
    return q;
  }

  /** Follows the session of an n-party query that is no longer pending; 1 unless it succeeded. */
  private int followGroupQuery(ApiClient c, JsonNode query, String cmd)
      throws ApiError, InterruptedException {
    if (!query.path("status").asText().equals("approved")) {
      err.println(
          "psi "
              + cmd
              + ": query "
              + query.path("id").asText()
              + " was "
              + query.path("status").asText()
              + reason(query));
      return 1;
    }
    return follow(c, GROUP_SESSIONS, query.path("session").path("id").asText());
  }

  /** The parties of an n-party query that P1 has no decision of yet (at P1: who to wait for). */
  private static List<String> undecided(JsonNode query) {
    Set<String> decided = new HashSet<>();
    query.path("decisions").forEach(d -> decided.add(d.path("party").asText()));
    List<String> out = new ArrayList<>();
    query.path("parties").forEach(p -> out.add(p.path("party").asText()));
    out.removeAll(decided);
    return out;
  }

  private int decide(Decide a, Connection connection, boolean approve, boolean await)
      throws ApiError, InterruptedException {
    String id = a.queryId;
    Map<String, Object> body = new HashMap<>();
    if (a.reason != null) {
      body.put("reason", a.reason);
    }
    ApiClient c = client(connection);
    String verb = approve ? "/approve" : "/reject";
    Answer answer =
        twoPartyOrGroup(
            c,
            () -> c.post("/v1/queries/" + id + verb, body),
            GROUP_QUERIES + id,
            () -> c.post(GROUP_QUERIES + id + verb, body));
    JsonNode r = answer.body();
    if (answer.group()) {
      return decidedGroup(c, r, await);
    }
    String session = r.path("session").path("id").asText(null);
    out.println(
        "query "
            + id
            + " "
            + r.path("status").asText()
            + (session != null ? "; session " + session + " (its jobs start now)" : ""));
    printDisclosure(r);
    return await && session != null ? follow(c, session) : 0;
  }

  /** What this party's decision on an n-party query gave, and with --wait its session's end. */
  private int decidedGroup(ApiClient c, JsonNode r, boolean await)
      throws ApiError, InterruptedException {
    String id = r.path("id").asText();
    String status = r.path("status").asText();
    String session = r.path("session").path("id").asText(null);
    out.println(
        "query "
            + id
            + " "
            + (status.equals("pending") ? "approved here" : status)
            + (session != null
                ? "; session " + session + " (its jobs start now)"
                : status.equals("pending")
                    ? "; waiting for the other parties ("
                        + r.path("requester").asText()
                        + ", P1, creates the session once every party approved)"
                    : reason(r)));
    printGroupDisclosure(r);
    if (!await || !(status.equals("pending") || status.equals("approved"))) {
      return 0;
    }
    return followGroupQuery(c, awaitDecisions(c, r), "approve");
  }

  /** A call of the API. */
  @FunctionalInterface
  private interface Call {
    JsonNode run() throws ApiError;
  }

  /** The answer of a call, and whether the id was an n-party object's. */
  private record Answer(boolean group, JsonNode body) {}

  /**
   * Makes the two-party call; on its 404, the n-party call if {@code groupObject} exists here. Two
   * ids never name a two-party and an n-party object at once (both are random UUIDs), and a 404 of
   * the two-party call may mean something else than an unknown id (a result at party B): looking
   * the n-party object up first keeps that error when the id is not an n-party one.
   */
  private static Answer twoPartyOrGroup(ApiClient c, Call twoParty, String groupObject, Call group)
      throws ApiError {
    try {
      return new Answer(false, twoParty.run());
    } catch (ApiError e) {
      if (e.status != 404) {
        throw e;
      }
      if (find(c, groupObject) == null) {
        throw e;
      }
      return new Answer(true, group.run());
    }
  }

  /** The object at {@code path}, or null if the coordinator answers 404. */
  private static JsonNode find(ApiClient c, String path) throws ApiError {
    try {
      return c.get(path);
    } catch (ApiError e) {
      if (e.status == 404) {
        return null;
      }
      throw e;
    }
  }

  /** Shows a session's progress until it ends; 0 if it succeeded. */
  private int follow(ApiClient c, String session) throws ApiError, InterruptedException {
    return follow(c, SESSIONS, session);
  }

  /** As above, for a session under {@code sessions} (two-party or n-party). */
  private int follow(ApiClient c, String sessions, String session)
      throws ApiError, InterruptedException {
    ProgressView view = new ProgressView(out, System.console() != null, "session");
    JsonNode s;
    while (true) {
      s = c.get(sessions + session);
      view.update(s, "");
      if (Set.of("succeeded", "failed", "cancelled").contains(s.path("status").asText())) {
        break;
      }
      Thread.sleep(500);
    }
    view.finish();
    printSession(s);
    return s.path("status").asText().equals("succeeded") ? 0 : 1;
  }

  private int status(Status a) throws ApiError {
    String id = a.id;
    ApiClient c = client(a.connection);
    // a two-party session or query, else an n-party one
    boolean group = false;
    JsonNode session = find(c, SESSIONS + id);
    JsonNode query = session == null ? find(c, "/v1/queries/" + id) : null;
    if (session == null && query == null) {
      group = true;
      session = find(c, GROUP_SESSIONS + id);
      query = session == null ? find(c, GROUP_QUERIES + id) : null;
      if (session == null && query == null) {
        throw new ApiError(404, null, "no query or session " + id + " at this coordinator");
      }
    }
    if (query != null) {
      session = query.path("session").isObject() ? query.path("session") : null;
    }
    if (a.json) {
      out.println(query != null ? query.toPrettyString() : session.toPrettyString());
      return 0;
    }
    if (group) {
      if (query != null) {
        printGroupQuery(query);
      } else {
        out.printf(
            Locale.ROOT,
            "n-party session of query %s: %s; every job dials P1's bridge endpoint %s%n",
            session.path("queryId").asText(),
            parties(session),
            session.path("endpoint").asText());
      }
      if (session != null) {
        printSession(session);
      } else {
        out.println("no session yet (P1 creates it once every party approved)");
      }
      return 0;
    }
    if (query != null) {
      out.printf(
          Locale.ROOT,
          "query %s: %s%s (%s, this party is %s; %s with the peer's %s)%n",
          query.path("id").asText(),
          query.path("status").asText(),
          reason(query),
          query.path("direction").asText(),
          query.path("localSide").asText(),
          query.path("localDataset").asText(),
          query.path("peerDataset").asText());
      printDisclosure(query);
    }
    if (session != null) {
      printSession(session);
    } else {
      out.println("no session yet (a session is created when the query is approved)");
    }
    return 0;
  }

  /** What each party learns from the query, as its coordinator worked it out when validating. */
  private void printDisclosure(JsonNode query) {
    JsonNode d = query.path("disclosure");
    if (d.isObject()) {
      if (d.hasNonNull("join")) {
        List<String> keys = new ArrayList<>();
        d.path("keys").forEach(k -> keys.add(k.asText()));
        JsonNode h = d.path("helper");
        out.println(
            "join: "
                + d.path("join").asText()
                + " on "
                + String.join(" AND ", keys)
                + (h.isObject() ? ", pre-filtered by helper " + h.path("name").asText() : ""));
        d.path("notes").forEach(n -> out.println("note: " + n.asText()));
      }
      // which mode runs and what it means (null for queries stored before the labeled mode)
      if (d.hasNonNull("modeText")) {
        out.println(d.path("modeText").asText());
      }
      out.println("the peer learns " + d.path("peerLearnsAboutMine").path("text").asText());
      out.println("this party learns " + d.path("iLearnAboutPeer").path("text").asText());
      JsonNode h = d.path("helper");
      if (h.isObject()) {
        // the helper as this party registered it, and what the pre-filter adds to the above
        out.printf(
            Locale.ROOT,
            "helper: %s%s, certificate SHA-256 %s; filter %s, %s%n",
            h.path("name").asText(),
            h.path("description").asText("").isEmpty()
                ? ""
                : " (" + h.path("description").asText() + ")",
            h.path("certSha256").asText(),
            h.path("filterBits").asInt() == 0
                ? "size chosen by the jobs"
                : "of 2^" + h.path("filterBits").asInt() + " bits",
            h.path("filterHashes").asInt() == 0
                ? "hash count chosen by the jobs"
                : h.path("filterHashes").asInt() + " hashes per key");
        out.println(h.path("text").asText());
      }
    }
  }

  private void printSession(JsonNode s) {
    JsonNode p = s.path("progress");
    StringBuilder sb =
        new StringBuilder(
            String.format(
                Locale.ROOT, "session %s: %s", s.path("id").asText(), s.path("status").asText()));
    if (p.isObject()) {
      sb.append(", phase ").append(p.path("phase").asText());
      sb.append(", bins ")
          .append(p.path("binsDone").asLong())
          .append('/')
          .append(p.path("binsTotal").isNumber() ? p.path("binsTotal").asText() : "?");
    }
    if (s.path("startedAt").isNumber()) {
      sb.append(", started ")
          .append(TIME.format(Instant.ofEpochMilli(s.path("startedAt").asLong())))
          .append(" UTC");
    }
    if (s.path("endedAt").isNumber() && s.path("startedAt").isNumber()) {
      sb.append(
          String.format(
              Locale.ROOT,
              ", ran %.1f s",
              (s.path("endedAt").asLong() - s.path("startedAt").asLong()) / 1000.0));
    }
    JsonNode queue = s.path("queue");
    if (queue.path("position").isInt()) {
      sb.append(
          String.format(
              Locale.ROOT,
              ", queued: %d of %d waiting for one of %d job slots",
              queue.path("position").asInt(),
              queue.path("of").asInt(),
              queue.path("jobSlots").asInt()));
    } else if (queue.path("waitingFor").isTextual()) {
      sb.append(", queued: waiting for ")
          .append(queue.path("waitingFor").asText())
          .append("'s coordinator to start it");
    }
    out.println(sb);
    if (s.path("error").isTextual()) {
      out.println("error: " + s.path("error").asText());
    }
    if (s.path("result").isObject()) {
      JsonNode r = s.path("result");
      out.printf(
          Locale.ROOT,
          "result: %s (%s, %,d rows)%n",
          r.path("location").asText(),
          r.path("format").asText(),
          r.path("rowsOut").asLong());
    }
  }

  /** An n-party query as {@code status} shows it: its parties, decisions and disclosure. */
  private void printGroupQuery(JsonNode q) {
    String id = q.path("id").asText();
    String status = q.path("status").asText();
    out.printf(
        Locale.ROOT,
        "query %s: %s%s (n-party join of %d parties, this party is %s; submitted by %s)%n",
        id,
        status,
        reason(q),
        q.path("parties").size(),
        q.path("role").asText(),
        q.path("requester").asText());
    out.println("parties: " + parties(q));
    List<String> decisions = new ArrayList<>();
    for (JsonNode d : q.path("decisions")) {
      String why = d.path("reason").asText("");
      decisions.add(
          d.path("party").asText()
              + " "
              + d.path("decision").asText()
              + (why.isEmpty() ? "" : " (" + why + ")"));
    }
    out.println("decisions: " + (decisions.isEmpty() ? "none yet" : String.join(", ", decisions)));
    if (status.equals("pending")) {
      boolean p1 = q.path("localIndex").asInt() == 0;
      boolean decidedHere = !p1 && q.path("decisions").size() > 0;
      out.println(
          p1
              ? "waiting for " + String.join(", ", undecided(q))
              : decidedHere
                  ? "waiting for the other parties (P1, "
                      + q.path("requester").asText()
                      + ", collects their decisions)"
                  : "waiting for this party's decision: ./psi approve|reject " + id);
    }
    printGroupDisclosure(q);
  }

  /** Every party of an n-party query or session: {@code P1 alice (purchases), ...}. */
  private static String parties(JsonNode queryOrSession) {
    List<String> ps = new ArrayList<>();
    int i = 0;
    for (JsonNode p : queryOrSession.path("parties")) {
      ps.add("P" + ++i + " " + p.path("party").asText() + " (" + p.path("dataset").asText() + ")");
    }
    return String.join(", ", ps);
  }

  /**
   * What the approval of an n-party query shows (GroupPolicy.disclosure): each party's table as far
   * as this coordinator knows it, the provider, and who learns what.
   */
  private void printGroupDisclosure(JsonNode query) {
    JsonNode d = query.path("disclosure");
    if (!d.isObject()) {
      return;
    }
    out.println("join: " + d.path("join").asText());
    String self = d.path("thisParty").asText();
    for (JsonNode t : d.path("parties")) {
      StringBuilder sb =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "%s %s%s: table %s (%s)",
                  t.path("role").asText(),
                  t.path("party").asText(),
                  t.path("role").asText().equals(self) ? " (this party)" : "",
                  t.path("table").asText(),
                  t.path("dataset").asText()));
      // the other parties' views are known at P1 only
      if (t.has("joinKey")) {
        sb.append(", join key ").append(words(t.path("joinKey")));
        sb.append(", reveals ").append(words(t.path("revealed")));
        if (t.hasNonNull("where")) {
          sb.append(", where ").append(t.path("where").asText());
        }
      }
      if (t.has("publicSize")) {
        sb.append(", public size ").append(t.path("publicSize").asText());
      }
      out.println(sb);
    }
    JsonNode p = d.path("provider");
    out.printf(
        Locale.ROOT,
        "provider: %s%s, certificate SHA-256 %s%n",
        p.path("name").asText(),
        p.path("description").asText("").isEmpty()
            ? ""
            : " (" + p.path("description").asText() + ")",
        p.path("certSha256").asText());
    out.println(d.path("output").asText());
    d.path("learns")
        .fields()
        .forEachRemaining(e -> out.println(e.getKey() + " learns " + e.getValue().asText()));
  }

  /** A JSON array of strings as {@code [a, b]}. */
  private static String words(JsonNode array) {
    List<String> w = new ArrayList<>();
    array.forEach(n -> w.add(n.asText()));
    return w.toString();
  }

  private int cancel(Cancel a) throws ApiError {
    ApiClient c = client(a.connection);
    String id = a.sessionId;
    JsonNode s =
        twoPartyOrGroup(
                c,
                () -> c.post(SESSIONS + id + "/cancel", null),
                GROUP_SESSIONS + id,
                () -> c.post(GROUP_SESSIONS + id + "/cancel", null))
            .body();
    printSession(s);
    return 0;
  }

  private int result(Result a) throws ApiError {
    ApiClient c = client(a.connection);
    String id = a.sessionId;
    JsonNode r =
        twoPartyOrGroup(
                c,
                () -> c.get(SESSIONS + id + "/result"),
                GROUP_SESSIONS + id,
                () -> c.get(GROUP_SESSIONS + id + "/result"))
            .body();
    if (a.json) {
      out.println(r.toPrettyString());
    } else {
      out.printf(
          Locale.ROOT,
          "%s (%s, %,d rows)%n",
          r.path("location").asText(),
          r.path("format").asText(),
          r.path("rowsOut").asLong());
    }
    return 0;
  }

  private static String reason(JsonNode query) {
    String r = query.path("statusReason").asText(null);
    return r == null || r.isEmpty() ? "" : ": " + r;
  }

  private static String required(String option, String v) {
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException(option + " is required");
    }
    return v;
  }
}
