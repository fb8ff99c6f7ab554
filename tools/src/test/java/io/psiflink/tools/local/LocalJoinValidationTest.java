package io.psiflink.tools.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Role;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./psi local} refuses a join that cannot run before any party starts: one line that names
 * the clause and position (or the table), exit code 2, the stack trace in the run's log file.
 */
class LocalJoinValidationTest {
  @TempDir Path dir;

  @BeforeEach
  void tables() throws Exception {
    Files.writeString(dir.resolve("a.csv"), "id,k,spend\n1,10,2.5\n2,20,3.5\n");
    Files.writeString(dir.resolve("b.csv"), "k,email\n10,x@example.org\n30,y@example.org\n");
  }

  /** What one run of the command printed and returned, and whether a party JVM started. */
  private record Outcome(
      int code, String out, String err, List<Role> started, Path log, double seconds) {}

  private Outcome run(String a, String sql) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<Role> started = new ArrayList<>();
    Path work = dir.resolve("work");
    long t0 = System.nanoTime();
    int code =
        LocalJoin.execute(
            new String[] {
              "--a",
              a,
              "--b",
              dir.resolve("b.csv").toString(),
              "--sql",
              sql,
              "--out",
              dir.resolve("out").toString(),
              "--work",
              work.toString()
            },
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new LocalJoin.Hooks() {
              @Override
              public void started(Role party, Process process) {
                started.add(party);
                process.destroyForcibly();
              }
            });
    return new Outcome(
        code,
        out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8),
        started,
        work.resolve(LocalJoin.LOG_FILE),
        (System.nanoTime() - t0) / 1e9);
  }

  private static void assertRefusedBeforeAnyParty(Outcome o, String... expected) throws Exception {
    assertEquals(2, o.code(), o.err());
    assertEquals(List.of(), o.started(), "no party JVM may start");
    assertEquals("", o.out());
    List<String> lines = o.err().lines().toList();
    assertEquals(1, lines.size(), o.err());
    String line = lines.get(0);
    assertTrue(line.startsWith("psi local: "), line);
    for (String e : expected) {
      assertTrue(line.contains(e), e + " in: " + line);
    }
    assertTrue(line.endsWith("(details: " + o.log() + ")"), line);
    assertFalse(line.contains("Exception"), line);
    String trace = Files.readString(o.log());
    assertTrue(trace.contains("InvalidJoinException") && trace.contains("\tat "), trace);
    // nothing of a party's run: no certificates, no party work directory, no output
    assertFalse(Files.exists(o.log().getParent().resolve("pki")));
    assertFalse(Files.exists(o.log().getParent().resolve("party-A")));
    Path out = o.log().getParent().getParent().resolve("out");
    assertTrue(
        !Files.exists(out) || contents(out).equals(List.of(EARLIER)), "an output was written");
    // (seconds, not the 15 s and more of two parties failing; generous for a loaded test machine)
    assertTrue(o.seconds() < 10, "took " + o.seconds() + " s");
  }

  @Test
  void invalidSqlIsOneLineNamingTheClauseAndPosition() throws Exception {
    Outcome o =
        run(dir.resolve("a.csv").toString(), "SELECT a.spend FROM a JOIN b ON a.k = b.k WHERE");
    assertRefusedBeforeAnyParty(o, "invalid query: SQL: ", "line 1, column");
  }

  @Test
  void anUnknownColumnIsOneLineNamingItsClauseColumnAndPosition() throws Exception {
    String sql = "SELECT a.spend, b.email FROM a JOIN b ON a.k = b.k WHERE a.nope > 1";
    Outcome o = run(dir.resolve("a.csv").toString(), sql);
    assertRefusedBeforeAnyParty(
        o, "WHERE: ", "nope", "line 1, column " + (sql.indexOf("a.nope") + 1) + ": `a.nope`");
  }

  @Test
  void aMissingTableIsOneLineNamingTheFile() throws Exception {
    Path missing = dir.resolve("missing.csv");
    Outcome o = run(missing.toString(), "SELECT a.spend FROM a JOIN b ON a.k = b.k");
    assertRefusedBeforeAnyParty(o, "table a (" + missing + "): no such file or directory");
  }

  @Test
  void anUnreadableTableIsOneLineNamingTheFile() throws Exception {
    Path locked = dir.resolve("locked.csv");
    Files.writeString(locked, "id,k\n1,2\n");
    locked.toFile().setReadable(false);
    if (Files.isReadable(locked)) {
      return; // running as root: every file is readable
    }
    Outcome o = run(locked.toString(), "SELECT a.id FROM a JOIN b ON a.k = b.k");
    assertRefusedBeforeAnyParty(o, "table a (" + locked + "): not readable");
  }

  private static final String EARLIER = "part-of-an-earlier-run.csv";

  private static List<String> contents(Path d) throws Exception {
    try (var s = Files.list(d)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void anOutputThatIsNotEmptyIsOneLineNamingIt() throws Exception {
    Path out = Files.createDirectories(dir.resolve("out"));
    Files.writeString(out.resolve(EARLIER), "1\n");
    Outcome o = run(dir.resolve("a.csv").toString(), "SELECT a.spend FROM a JOIN b ON a.k = b.k");
    assertRefusedBeforeAnyParty(
        o, "output directory '" + out + "' already exists and is not empty", EARLIER);
  }

  @Test
  void aWrongCommandLineIsOneLineNamingTheOption() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        LocalJoin.execute(
            new String[] {"--a", "x", "--sql", "S", "--out", "o"},
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            LocalJoin.Hooks.NONE);
    assertEquals(2, code);
    String text = err.toString(StandardCharsets.UTF_8);
    assertEquals(1, text.lines().count(), text);
    assertTrue(text.contains("--b"), text);
  }
}
