package io.psiflink.coordinator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psiflink.api.JoinMode;
import io.psiflink.api.OutputFormat;
import io.psiflink.api.Role;
import io.psiflink.coordinator.CoordinatorMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The command lines of {@code ./psi serve|submit|approve|reject|status|cancel|result} as {@code
 * ./psi help} and docs/coordinator.md write them, parsed to typed values; each command's {@code
 * --help}; wrong command lines (no coordinator needed: they fail before any request).
 */
class PsiCliCommandLineTest {
  private static final String SQL = "SELECT a.id, b.email FROM a JOIN b ON a.card = b.card";

  /** One command's exit code and output. */
  record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        new PsiCli(
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                Map.of())
            .run(args);
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void submitParsesToTypedValues() {
    PsiCli.Submit s =
        assertInstanceOf(
            PsiCli.Submit.class,
            PsiCli.parse(
                "submit",
                "--dataset",
                "purchases",
                "--peer-dataset",
                "customers",
                "--sql",
                SQL,
                "--role",
                "B",
                "--output",
                "out/joined",
                "--format",
                "csv",
                "--bins",
                "64",
                "--sigma",
                "40",
                "--protocol",
                "ecdh",
                "--mode",
                "labeled",
                "--label-bytes",
                "512",
                "--wait",
                "--coordinator",
                "https://alice.example:8443",
                "--token-file",
                "alice.token",
                "--ca",
                "pki/ca.pem"));
    assertEquals("purchases", s.dataset);
    assertEquals("customers", s.peerDataset);
    assertEquals(SQL, s.sql);
    assertEquals(Role.B, s.role);
    assertEquals("out/joined", s.output);
    assertEquals(OutputFormat.CSV, s.format);
    assertEquals(64, s.bins);
    assertEquals(40, s.sigma);
    assertEquals("ecdh", s.protocol);
    assertEquals(JoinMode.LABELED, s.mode);
    assertEquals(512, s.labelBytes);
    assertTrue(s.await);
    assertEquals(URI.create("https://alice.example:8443"), s.connection.coordinator);
    assertEquals(Path.of("alice.token"), s.connection.tokenFile);
    assertEquals(Path.of("pki/ca.pem"), s.connection.ca);

    // the docs' form: only the required options, --name=value too
    PsiCli.Submit d =
        assertInstanceOf(
            PsiCli.Submit.class,
            PsiCli.parse(
                "submit", "--dataset=purchases", "--peer-dataset", "customers", "--sql", SQL));
    assertNull(d.role);
    assertNull(d.format);
    assertNull(d.bins);
    assertNull(d.mode); // the coordinator's default: both
    assertNull(d.labelBytes);
    assertFalse(d.await);
    assertNull(d.connection.coordinator);
    // role A in any case
    PsiCli.Submit lower =
        (PsiCli.Submit)
            PsiCli.parse(
                "submit",
                "--dataset",
                "x",
                "--peer-dataset",
                "y",
                "--sql",
                SQL,
                "--role",
                "a",
                "--format",
                "AVRO",
                "--mode",
                "Both");
    assertEquals(JoinMode.BOTH, lower.mode);
    assertEquals(Role.A, lower.role);
    assertEquals(OutputFormat.AVRO, lower.format);
  }

  private static final String SQL3 =
      "SELECT a.spend, b.email, c.policy FROM a JOIN b ON a.card = b.card"
          + " JOIN c ON a.card = c.card";

  @Test
  void anNPartySubmitParsesToItsPartiesInOrderAndItsRequest() throws Exception {
    PsiCli.Submit s =
        assertInstanceOf(
            PsiCli.Submit.class,
            PsiCli.parse(
                "submit",
                "--sql",
                SQL3,
                "--party",
                "alice=purchases",
                "--party",
                "bob=customers",
                "--party=carol=claims.2026",
                "--provider",
                "olivia",
                "--out",
                "hdfs://nn:8020/psi/joined",
                "--format",
                "csv",
                "--bins",
                "64",
                "--sigma",
                "60",
                "--wait"));
    assertTrue(s.group());
    assertEquals(
        List.of(
            new PsiCli.PartyArg("alice", "purchases"),
            new PsiCli.PartyArg("bob", "customers"),
            new PsiCli.PartyArg("carol", "claims.2026")),
        s.parties());
    assertEquals("olivia", s.provider);
    assertTrue(s.await);
    // the body of POST /v1/group-queries: parties in the order given, a URI output as it is
    assertEquals(
        new ObjectMapper()
            .readTree(
                "{\"sql\": \""
                    + SQL3
                    + "\", \"parties\": [{\"party\": \"alice\", \"dataset\": \"purchases\"},"
                    + " {\"party\": \"bob\", \"dataset\": \"customers\"},"
                    + " {\"party\": \"carol\", \"dataset\": \"claims.2026\"}],"
                    + " \"provider\": \"olivia\", \"bins\": 64, \"sigma\": 60,"
                    + " \"output\": {\"location\": \"hdfs://nn:8020/psi/joined\", \"format\":"
                    + " \"csv\"}}"),
        PsiCli.groupRequest(s));
    // only what was given: the coordinator's defaults for the rest; a path made absolute
    PsiCli.Submit d =
        (PsiCli.Submit)
            PsiCli.parse(
                "submit",
                "--party",
                "alice=a",
                "--party",
                "bob=b",
                "--party",
                "carol=c",
                "--party",
                "dave=d",
                "--sql",
                SQL3,
                "--provider=olivia",
                "--output",
                "out/joined");
    assertEquals(4, d.parties().size());
    assertEquals(List.of("sql", "parties", "provider", "output"), names(PsiCli.groupRequest(d)));
    assertEquals(
        Path.of("out/joined").toAbsolutePath().toString(),
        PsiCli.groupRequest(d).path("output").path("location").asText());
    assertFalse(PsiCli.groupRequest(d).path("output").has("format"));
    // a two-party submit is not an n-party one
    assertFalse(
        ((PsiCli.Submit)
                PsiCli.parse("submit", "--dataset", "x", "--peer-dataset", "y", "--sql", SQL))
            .group());
  }

  /** The field names of a JSON object, in order. */
  private static List<String> names(JsonNode n) {
    List<String> out = new ArrayList<>();
    n.fieldNames().forEachRemaining(out::add);
    return out;
  }

  @Test
  void anNPartySubmitRefusesTheTwoPartyOptionsAndTooFewParties() {
    String[] three = {
      "submit", "--sql", SQL3, "--party", "alice=a", "--party", "bob=b", "--party", "carol=c"
    };
    // each two-party option, named
    for (String[] extra :
        new String[][] {
          {"--dataset", "a"},
          {"--peer-dataset", "b"},
          {"--role", "A"},
          {"--protocol", "rr22"},
          {"--mode", "labeled"},
          {"--label-bytes", "512"},
          {"--prefilter", "helper"},
          {"--helper", "carol"},
          {"--filter-bits", "20"},
          {"--filter-hashes", "2"},
          {"--expected-overlap", "0.5"}
        }) {
      Run r = run(concat(three, "--provider", "olivia", extra[0], extra[1]));
      assertFails(r, extra[0]);
      assertTrue(
          r.err().contains("--party (an n-party query) does not take " + extra[0] + ":"), r.err());
    }
    Run two = run(concat(three, "--provider", "olivia", "--dataset", "a", "--peer-dataset", "b"));
    assertFails(two, "does not take --dataset, --peer-dataset: they are options of a two-party");
    // two parties are a two-party query
    Run few =
        run(
            "submit",
            "--sql",
            SQL,
            "--party",
            "alice=a",
            "--party",
            "bob=b",
            "--provider",
            "olivia");
    assertFails(few, "--party: an n-party query names three or more parties");
    assertFails(run(three), "--provider");
    assertFails(run(concat(three, "--provider", "olivia", "--party", "dave")), "ORG=DATASET");
    assertFails(run(concat(three, "--provider", "olivia", "--party", "=d")), "--party");
    assertFails(run(concat(three, "--provider", "olivia", "--party", "dave=")), "--party");
    // --provider belongs to the n-party form
    assertFails(
        run("submit", "--dataset", "x", "--peer-dataset", "y", "--sql", SQL, "--provider", "o"),
        "--provider is the provider of an n-party query");
    // --help still wins over a command line that is neither form
    Run help = run("submit", "--party", "alice=a", "--help");
    assertEquals(0, help.code(), help.toString());
    assertTrue(help.out().contains("--party=ORG=DATASET"), help.out());
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void theOtherCommandsParseToTypedValues() {
    PsiCli.Approve a =
        assertInstanceOf(
            PsiCli.Approve.class,
            PsiCli.parse("approve", "q-1", "--reason", "ok by legal", "--wait"));
    assertEquals("q-1", a.queryId);
    assertEquals("ok by legal", a.reason);
    assertTrue(a.await);
    PsiCli.Reject r =
        assertInstanceOf(PsiCli.Reject.class, PsiCli.parse("reject", "q-2", "--reason", "no"));
    assertEquals("q-2", r.queryId);
    assertEquals("no", r.reason);
    PsiCli.Status st =
        assertInstanceOf(PsiCli.Status.class, PsiCli.parse("status", "s-1", "--json"));
    assertEquals("s-1", st.id);
    assertTrue(st.json);
    assertFalse(((PsiCli.Status) PsiCli.parse("status", "s-1")).json);
    assertEquals(
        "s-2", assertInstanceOf(PsiCli.Cancel.class, PsiCli.parse("cancel", "s-2")).sessionId);
    PsiCli.Result res =
        assertInstanceOf(PsiCli.Result.class, PsiCli.parse("result", "s-3", "--json"));
    assertEquals("s-3", res.sessionId);
    assertTrue(res.json);
    CoordinatorMain.Serve serve =
        assertInstanceOf(CoordinatorMain.Serve.class, PsiCli.parse("serve", "alice.yaml"));
    assertEquals(Path.of("alice.yaml"), serve.config());
  }

  @Test
  void helpListsEveryCommandAndOption() {
    Run top = run("--help");
    assertEquals(0, top.code(), top.toString());
    for (String c : List.of("serve", "submit", "approve", "reject", "status", "cancel", "result")) {
      assertTrue(top.out().contains(c), c + " in " + top.out());
    }
    // the options ./psi help and docs/coordinator.md name, per command
    Map<String, List<String>> options =
        Map.of(
            "submit",
                List.of(
                    "--dataset",
                    "--peer-dataset",
                    "--sql",
                    "--role",
                    "--output",
                    "--format",
                    "--bins",
                    "--sigma",
                    "--protocol",
                    "--mode",
                    "--label-bytes",
                    "--wait",
                    "--party",
                    "--provider",
                    "--coordinator",
                    "--token-file",
                    "--ca"),
            "approve",
                List.of("QUERY_ID", "--reason", "--wait", "--coordinator", "--token-file", "--ca"),
            "reject", List.of("QUERY_ID", "--reason", "--coordinator", "--token-file", "--ca"),
            "status", List.of("ID", "--json", "--coordinator", "--token-file", "--ca"),
            "cancel", List.of("SESSION_ID", "--coordinator", "--token-file", "--ca"),
            "result", List.of("SESSION_ID", "--json", "--coordinator", "--token-file", "--ca"),
            "serve", List.of("CONFIG.yaml"));
    options.forEach(
        (cmd, names) -> {
          Run h = run(cmd, "--help");
          assertEquals(0, h.code(), h.toString());
          for (String n : names) {
            assertTrue(h.out().contains(n), cmd + " --help lacks " + n + ":\n" + h.out());
          }
          assertEquals(h.out(), run("help", cmd).out());
        });
    assertFalse(run("approve", "--help").out().contains("--json"));
  }

  @Test
  void wrongCommandLinesFailNamingTheOption() {
    assertFails(run("status", "s-1", "--bogus"), "--bogus");
    assertFails(
        run("submit", "--dataset", "x", "--peer-dataset", "y", "--sql", SQL, "--role", "C"),
        "--role");
    assertFails(
        run("submit", "--dataset", "x", "--peer-dataset", "y", "--sql", SQL, "--role", "helper"),
        "--role");
    assertFails(
        run("submit", "--dataset", "x", "--peer-dataset", "y", "--sql", SQL, "--format", "xml"),
        "--format");
    // the job writes parquet, a coordinator's output does not
    assertFails(
        run("submit", "--dataset", "x", "--peer-dataset", "y", "--sql", SQL, "--format", "parquet"),
        "--format");
    assertFails(
        run("submit", "--dataset", "x", "--peer-dataset", "y", "--sql", SQL, "--bins", "many"),
        "--bins");
    assertFails(run("submit", "--dataset", "x", "--sql", SQL), "--peer-dataset");
    Run mode =
        run("submit", "--dataset", "x", "--peer-dataset", "y", "--sql", SQL, "--mode", "nobody");
    assertFails(mode, "--mode");
    assertTrue(mode.err().contains("must be both or labeled"), mode.err());
    assertFails(
        run("submit", "--dataset", "x", "--peer-dataset", "y", "--sql", SQL, "--label-bytes", "k"),
        "--label-bytes");
    assertFails(
        run(
            "submit",
            "--dataset",
            "x",
            "--peer-dataset",
            "y",
            "--sql",
            SQL,
            "--coordinator",
            "not a url"),
        "--coordinator");
    assertFails(run("approve"), "QUERY_ID");
    assertFails(run("cancel", "s-1", "s-2"), "s-2");
    assertFails(run("reject", "q-1", "--wait"), "--wait");
    assertFails(run("frobnicate"), "frobnicate");
    // no coordinator: the option to give is named, before any request
    assertFails(run("status", "s-1"), "--coordinator");
  }

  private static void assertFails(Run r, String naming) {
    assertEquals(2, r.code(), r.toString());
    assertTrue(r.err().contains(naming), naming + " not in " + r.err());
    assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
  }
}
