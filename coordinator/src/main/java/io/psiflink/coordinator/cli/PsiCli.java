package io.psiflink.coordinator.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psiflink.coordinator.CoordinatorMain;
import io.psiflink.coordinator.cli.ApiClient.ApiError;
import java.io.IOException;
import java.io.PrintStream;
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

/**
 * {@code ./psi serve | submit | approve | reject | status | cancel | result}: runs a coordinator,
 * or talks to a running one over HTTPS with a party token.
 */
public final class PsiCli {
  static final String USAGE = """
      usage: ./psi serve CONFIG.yaml
             ./psi submit --dataset D --peer-dataset P --sql SQL [--role A|B] [--output DIR]
                          [--format avro|csv] [--bins M] [--sigma S] [--protocol P] [--wait]
             ./psi approve QUERY_ID [--reason TEXT] [--wait]
             ./psi reject QUERY_ID [--reason TEXT]
             ./psi status ID [--json]          (a query or a session id)
             ./psi cancel SESSION_ID
             ./psi result SESSION_ID [--json]
      every command but serve talks to a coordinator:
        --coordinator URL   (or env PSI_COORDINATOR), e.g. https://alice.example:8443
        --token-file FILE   (or env PSI_TOKEN with the token itself): a party token
        --ca PEM            (or env PSI_CA): the CA of the coordinator's certificate
                            (default: the JVM's trust store)""";

  private static final Set<String> SWITCHES = Set.of("--wait", "--json");
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss")
      .withZone(ZoneOffset.UTC);

  /** Parsed arguments: positionals and --options. */
  record Args(List<String> positional, Map<String, String> options) {
    static Args parse(String[] args, int from) {
      List<String> pos = new ArrayList<>();
      Map<String, String> opts = new HashMap<>();
      for (int i = from; i < args.length; i++) {
        String a = args[i];
        if (!a.startsWith("--")) {
          pos.add(a);
        } else if (a.contains("=")) {
          opts.put(a.substring(0, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
        } else if (SWITCHES.contains(a)) {
          opts.put(a, "true");
        } else if (i + 1 < args.length) {
          opts.put(a, args[++i]);
        } else {
          throw new IllegalArgumentException(a + " needs a value");
        }
      }
      return new Args(List.copyOf(pos), Map.copyOf(opts));
    }

    String opt(String name) {
      return options.get(name);
    }

    boolean has(String name) {
      return options.containsKey(name);
    }

    void allow(Set<String> names, int positionals) {
      for (String k : options.keySet()) {
        if (!names.contains(k) && !Set.of("--coordinator", "--token-file", "--ca").contains(k)) {
          throw new IllegalArgumentException("unknown option " + k);
        }
      }
      if (positional.size() != positionals) {
        throw new IllegalArgumentException(positionals == 0 ? "no arguments expected besides"
            + " options, got " + positional : "expected " + positionals + " argument(s), got "
            + positional);
      }
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
    if (args.length >= 1 && args[0].equals("serve")) {
      if (args.length != 2) {
        System.err.println("usage: ./psi serve CONFIG.yaml");
        System.exit(2);
      }
      CoordinatorMain.main(args);
      return;
    }
    System.exit(new PsiCli(System.out, System.err, System.getenv()).run(args));
  }

  /** Runs one command; returns the exit code (0 ok, 1 failed, 2 usage). */
  public int run(String[] argv) {
    if (argv.length == 0 || argv[0].equals("help") || argv[0].equals("--help")) {
      out.println(USAGE);
      return argv.length == 0 ? 2 : 0;
    }
    String cmd = argv[0];
    Args a;
    try {
      a = Args.parse(argv, 1);
    } catch (IllegalArgumentException e) {
      err.println("psi " + cmd + ": " + e.getMessage() + "\n" + USAGE);
      return 2;
    }
    try {
      return switch (cmd) {
        case "submit" -> submit(a);
        case "approve" -> decide(a, true);
        case "reject" -> decide(a, false);
        case "status" -> status(a);
        case "cancel" -> cancel(a);
        case "result" -> result(a);
        default -> throw new IllegalArgumentException("unknown command '" + cmd + "'");
      };
    } catch (IllegalArgumentException e) {
      err.println("psi " + cmd + ": " + e.getMessage() + "\n" + USAGE);
      return 2;
    } catch (ApiError e) {
      err.println("psi " + cmd + ": " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }

  private ApiClient client(Args a) {
    String url = a.has("--coordinator") ? a.opt("--coordinator") : env.get("PSI_COORDINATOR");
    if (url == null || url.isBlank()) {
      throw new IllegalArgumentException("which coordinator? give --coordinator URL or set"
          + " PSI_COORDINATOR");
    }
    String token;
    if (a.has("--token-file")) {
      try {
        token = Files.readString(Path.of(a.opt("--token-file")), StandardCharsets.UTF_8).strip();
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot read the token file " + a.opt("--token-file")
            + ": " + e.getMessage());
      }
    } else {
      token = env.get("PSI_TOKEN");
    }
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("no token: give --token-file FILE or set PSI_TOKEN");
    }
    String ca = a.has("--ca") ? a.opt("--ca") : env.get("PSI_CA");
    return new ApiClient(url, token, ca == null || ca.isBlank() ? null : Path.of(ca));
  }

  private int submit(Args a) throws ApiError, InterruptedException {
    a.allow(Set.of("--dataset", "--peer-dataset", "--sql", "--role", "--output", "--format",
        "--bins", "--sigma", "--protocol", "--wait"), 0);
    ObjectNode q = ApiClient.JSON.createObjectNode();
    q.put("localDataset", required(a, "--dataset"));
    q.put("peerDataset", required(a, "--peer-dataset"));
    q.put("sql", required(a, "--sql"));
    if (a.has("--role")) {
      q.put("role", a.opt("--role"));
    }
    for (String k : List.of("--bins", "--sigma")) {
      if (a.has(k)) {
        try {
          q.put(k.substring(2), Integer.parseInt(a.opt(k)));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(k + " must be an integer");
        }
      }
    }
    if (a.has("--protocol")) {
      q.put("protocol", a.opt("--protocol"));
    }
    if (a.has("--output") || a.has("--format")) {
      ObjectNode o = q.putObject("output");
      if (a.has("--output")) {
        o.put("location", Path.of(a.opt("--output")).toAbsolutePath().toString());
      }
      if (a.has("--format")) {
        o.put("format", a.opt("--format"));
      }
    }
    ApiClient c = client(a);
    JsonNode r = c.post("/v1/queries", q);
    String id = r.path("id").asText();
    out.println("query " + id + " submitted: " + r.path("status").asText() + " (waiting for "
        + r.path("approver").asText() + " to approve)");
    printDisclosure(r);
    if (!a.has("--wait")) {
      return 0;
    }
    JsonNode query = r;
    while (query.path("status").asText().equals("pending")) {
      Thread.sleep(1000);
      query = c.get("/v1/queries/" + id);
    }
    if (!query.path("status").asText().equals("approved")) {
      err.println("psi submit: query " + id + " was " + query.path("status").asText()
          + reason(query));
      return 1;
    }
    return follow(c, query.path("session").path("id").asText());
  }

  private int decide(Args a, boolean approve) throws ApiError, InterruptedException {
    a.allow(approve ? Set.of("--reason", "--wait") : Set.of("--reason"), 1);
    String id = a.positional().get(0);
    Map<String, Object> body = new HashMap<>();
    if (a.has("--reason")) {
      body.put("reason", a.opt("--reason"));
    }
    ApiClient c = client(a);
    JsonNode r = c.post("/v1/queries/" + id + (approve ? "/approve" : "/reject"), body);
    String session = r.path("session").path("id").asText(null);
    out.println("query " + id + " " + r.path("status").asText()
        + (session != null ? "; session " + session + " (its jobs start now)" : ""));
    printDisclosure(r);
    return a.has("--wait") && session != null ? follow(c, session) : 0;
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

  private int status(Args a) throws ApiError {
    a.allow(Set.of("--json"), 1);
    String id = a.positional().get(0);
    ApiClient c = client(a);
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
    if (a.has("--json")) {
      out.println(query != null ? query.toPrettyString() : session.toPrettyString());
      return 0;
    }
    if (query != null) {
      out.printf(Locale.ROOT, "query %s: %s%s (%s, this party is %s; %s with the peer's %s)%n",
          query.path("id").asText(), query.path("status").asText(), reason(query),
          query.path("direction").asText(), query.path("localSide").asText(),
          query.path("localDataset").asText(), query.path("peerDataset").asText());
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
      out.println("the peer learns " + d.path("peerLearnsAboutMine").path("text").asText());
      out.println("this party learns " + d.path("iLearnAboutPeer").path("text").asText());
    }
  }

  private void printSession(JsonNode s) {
    JsonNode p = s.path("progress");
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "session %s: %s",
        s.path("id").asText(), s.path("status").asText()));
    if (p.isObject()) {
      sb.append(", phase ").append(p.path("phase").asText());
      sb.append(", bins ").append(p.path("binsDone").asLong()).append('/')
          .append(p.path("binsTotal").isNumber() ? p.path("binsTotal").asText() : "?");
    }
    if (s.path("startedAt").isNumber()) {
      sb.append(", started ").append(TIME.format(Instant.ofEpochMilli(
          s.path("startedAt").asLong()))).append(" UTC");
    }
    if (s.path("endedAt").isNumber() && s.path("startedAt").isNumber()) {
      sb.append(String.format(Locale.ROOT, ", ran %.1f s", (s.path("endedAt").asLong()
          - s.path("startedAt").asLong()) / 1000.0));
    }
    out.println(sb);
    if (s.path("error").isTextual()) {
      out.println("error: " + s.path("error").asText());
    }
    if (s.path("result").isObject()) {
      JsonNode r = s.path("result");
      out.printf(Locale.ROOT, "result: %s (%s, %,d rows)%n", r.path("location").asText(),
          r.path("format").asText(), r.path("rowsOut").asLong());
    }
  }

  private int cancel(Args a) throws ApiError {
    a.allow(Set.of(), 1);
    JsonNode s = client(a).post("/v1/sessions/" + a.positional().get(0) + "/cancel", null);
    printSession(s);
    return 0;
  }

  private int result(Args a) throws ApiError {
    a.allow(Set.of("--json"), 1);
    JsonNode r = client(a).get("/v1/sessions/" + a.positional().get(0) + "/result");
    if (a.has("--json")) {
      out.println(r.toPrettyString());
    } else {
      out.printf(Locale.ROOT, "%s (%s, %,d rows)%n", r.path("location").asText(),
          r.path("format").asText(), r.path("rowsOut").asLong());
    }
    return 0;
  }

  private static String reason(JsonNode query) {
    String r = query.path("statusReason").asText(null);
    return r == null || r.isEmpty() ? "" : ": " + r;
  }

  private static String required(Args a, String k) {
    String v = a.opt(k);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException(k + " is required");
    }
    return v;
  }
}
