package io.psiflink.coordinator.cli;

import com.fasterxml.jackson.databind.JsonNode;
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
 * {@code ./psi serve | submit | approve | reject | status | cancel | result}: runs a coordinator,
 * or talks to a running one over HTTPS with a party token. The command line is picocli's, one
 * subcommand per command, each with its generated {@code --help}.
 */
public final class PsiCli {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

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

  /** {@code ./psi submit}: a new query at this party's coordinator. */
  @Command(
      name = "submit",
      description = "Submits a query to your coordinator; the peer's approver decides on it.")
  static final class Submit {
    @Option(
        names = "--dataset",
        required = true,
        paramLabel = "D",
        description = "your registered dataset")
    String dataset;

    @Option(
        names = "--peer-dataset",
        required = true,
        paramLabel = "P",
        description = "the peer's registered dataset")
    String peerDataset;

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
        names = "--output",
        paramLabel = "DIR",
        description = "where party A writes the joined table")
    Path output;

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
  }

  /** {@code ./psi approve} and {@code ./psi reject}: this party's decision on a query. */
  static class Decide {
    @Parameters(paramLabel = "QUERY_ID", description = "the query the other party submitted")
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
      description = "Approves a query the other party submitted; its session's jobs start.")
  static final class Approve extends Decide {
    @Option(names = "--wait", description = "follow the session until it ends")
    boolean await;
  }

  @Command(name = "reject", description = "Rejects a query the other party submitted.")
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
      description = "A query's or session's status, phase and bins done/total.")
  static final class Status extends ById {
    @Parameters(paramLabel = "ID", description = "a query or a session id")
    String id;

    @Option(names = "--json", description = "print the coordinator's JSON")
    boolean json;
  }

  @Command(
      name = "cancel",
      description = "Stops a session's jobs (yours, and through your coordinator the peer's).")
  static final class Cancel extends ById {
    @Parameters(paramLabel = "SESSION_ID", description = "the session")
    String sessionId;
  }

  @Command(name = "result", description = "Where the joined table is (party A, after success).")
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
    if (CommandLine.printHelpIfRequested(
        r.asCommandLineList(), out, err, CommandLine.Help.Ansi.OFF)) {
      return 0;
    }
    if (!r.hasSubcommand()) {
      out.print(cl.getUsageMessage(CommandLine.Help.Ansi.OFF));
      return 2;
    }
    Object command = r.subcommand().commandSpec().userObject();
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
    if (a.output != null || a.format != null) {
      ObjectNode o = q.putObject("output");
      if (a.output != null) {
        o.put("location", a.output.toAbsolutePath().toString());
      }
      if (a.format != null) {
        o.put("format", a.format.text());
      }
    }
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

  private int decide(Decide a, Connection connection, boolean approve, boolean await)
      throws ApiError, InterruptedException {
    String id = a.queryId;
    Map<String, Object> body = new HashMap<>();
    if (a.reason != null) {
      body.put("reason", a.reason);
    }
    ApiClient c = client(connection);
    JsonNode r = c.post("/v1/queries/" + id + (approve ? "/approve" : "/reject"), body);
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

  /** Shows a session's progress until it ends; 0 if it succeeded. */
  private int follow(ApiClient c, String session) throws ApiError, InterruptedException {
    ProgressView view = new ProgressView(out, System.console() != null, "session");
    JsonNode s;
    while (true) {
      s = c.get("/v1/sessions/" + session);
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
    JsonNode session = null;
    JsonNode query = null;
    try {
      session = c.get("/v1/sessions/" + id);
    } catch (ApiError e) {
      if (e.status != 404) {
        throw e;
      }
      try {
        query = c.get("/v1/queries/" + id);
      } catch (ApiError e2) {
        if (e2.status == 404) {
          throw new ApiError(404, e2.body, "no query or session " + id + " at this coordinator");
        }
        throw e2;
      }
      session = query.path("session").isObject() ? query.path("session") : null;
    }
    if (a.json) {
      out.println(query != null ? query.toPrettyString() : session.toPrettyString());
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

  private int cancel(Cancel a) throws ApiError {
    JsonNode s = client(a.connection).post("/v1/sessions/" + a.sessionId + "/cancel", null);
    printSession(s);
    return 0;
  }

  private int result(Result a) throws ApiError {
    JsonNode r = client(a.connection).get("/v1/sessions/" + a.sessionId + "/result");
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
