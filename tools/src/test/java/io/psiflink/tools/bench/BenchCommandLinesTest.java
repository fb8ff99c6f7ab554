package io.psiflink.tools.bench;

import static io.psiflink.tools.cli.CommandLineAssertions.assertFails;
import static io.psiflink.tools.cli.CommandLineAssertions.assertHelpLists;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.OptionValues;
import io.psiflink.api.PublicSize;
import io.psiflink.api.TableSchema;
import io.psiflink.api.UsageException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The command lines of {@code ./psi bench join}, the table generator and the insecure join, as
 * {@code ./psi help}, docs/benchmarks.md and the benchmark scripts write them: parsed to typed
 * values, their {@code --help}, and wrong ones failing with one line that names the option.
 */
class BenchCommandLinesTest {
  @Test
  void benchJoinParsesToTypedValues() {
    OptionValues o =
        JoinBenchmark.SYNTAX.parse(
            "--rows",
            "1e6",
            "--rows-b",
            "1_000",
            "--overlap",
            "0.50",
            "--bins",
            "64",
            "--parallelism",
            "4",
            "--runs",
            "3",
            "--sigma",
            "40",
            "--protocol",
            "rr22",
            "--party-heap",
            "4g",
            "--work",
            "/tmp/w",
            "--seed",
            "7",
            "--no-insecure",
            "--json",
            "--where-selectivity",
            "0.25",
            "--public-size",
            "rounded,exact,declared:5000",
            "--net",
            "100mbit,10ms");
    assertEquals(1_000_000L, o.get(JoinBenchmark.ROWS));
    assertEquals(1_000L, o.get(JoinBenchmark.ROWS_B));
    // kept as written: it names the data directory and is echoed in the report
    assertEquals("0.50", o.get(JoinBenchmark.OVERLAP).toString());
    assertEquals(64, o.get(JoinBenchmark.BINS));
    assertEquals(4, o.get(JoinBenchmark.PARALLELISM));
    assertEquals(3, o.get(JoinBenchmark.RUNS));
    assertEquals(40, o.get(JoinBenchmark.SIGMA));
    assertEquals("rr22", o.get(JoinBenchmark.PROTOCOL));
    assertEquals("4g", o.get(JoinBenchmark.PARTY_HEAP));
    assertEquals(Path.of("/tmp/w"), o.get(JoinBenchmark.WORK));
    assertEquals(7L, o.get(JoinBenchmark.SEED));
    assertTrue(o.get(JoinBenchmark.NO_INSECURE));
    assertTrue(o.get(JoinBenchmark.JSON));
    assertEquals(0.25, o.get(JoinBenchmark.WHERE_SELECTIVITY));
    assertEquals(
        List.of(PublicSize.ROUNDED, PublicSize.EXACT, PublicSize.declared(5000)),
        o.get(JoinBenchmark.PUBLIC_SIZE).policies());
    assertEquals(NetSpec.parse("100mbit,10ms"), o.get(JoinBenchmark.NET));

    // ./psi help's short form: the defaults
    OptionValues d = JoinBenchmark.SYNTAX.parse("--rows", "100000", "--overlap", "0.5");
    assertFalse(d.has(JoinBenchmark.ROWS_B));
    assertEquals(new BigDecimal("0.5"), d.get(JoinBenchmark.OVERLAP));
    assertFalse(d.has(JoinBenchmark.BINS));
    assertEquals(2, d.get(JoinBenchmark.PARALLELISM));
    assertEquals(1, d.get(JoinBenchmark.RUNS));
    assertEquals("6g", d.get(JoinBenchmark.PARTY_HEAP));
    assertEquals(GeneratorSpec.DEFAULT_SEED, d.get(JoinBenchmark.SEED));
    assertFalse(d.get(JoinBenchmark.JSON));
    assertFalse(d.get(JoinBenchmark.NO_INSECURE));
    assertEquals(1.0, d.get(JoinBenchmark.WHERE_SELECTIVITY));
    assertEquals(List.of(PublicSize.ROUNDED), d.get(JoinBenchmark.PUBLIC_SIZE).policies());
    // no --net: the parties talk over loopback, unshaped, as before
    assertFalse(d.has(JoinBenchmark.NET));
    // no fault drill
    assertFalse(d.has(JoinBenchmark.DROP_EVERY));
    assertFalse(d.has(JoinBenchmark.JITTER));
    assertEquals(1L, d.get(JoinBenchmark.DROP_SEED));
    // so no proxy between party B and the relay (until 2026-12-01 the default seed made one)
    assertTrue(JoinBenchmark.faults(d).isNone());
    assertFalse(d.has(JoinBenchmark.ATTEMPTS));
  }

  @Test
  void benchJoinsFaultDrillOptionsParseToTypedValues() {
    OptionValues o =
        JoinBenchmark.SYNTAX.parse(
            "--rows",
            "1e6",
            "--overlap",
            "0.5",
            "--net",
            "100mbit,10ms",
            "--drop-every",
            "64MB",
            "--drop-seed",
            "7",
            "--jitter",
            "2ms",
            "--attempts",
            "5",
            "--pair-timeout",
            "30",
            "--idle-timeout",
            "45");
    assertEquals(64_000_000L, o.get(JoinBenchmark.DROP_EVERY));
    assertEquals(7L, o.get(JoinBenchmark.DROP_SEED));
    assertEquals(java.time.Duration.ofMillis(2), o.get(JoinBenchmark.JITTER));
    assertEquals(5, o.get(JoinBenchmark.ATTEMPTS));
    assertEquals(java.time.Duration.ofSeconds(30), o.get(JoinBenchmark.PAIR_TIMEOUT));
    assertEquals(java.time.Duration.ofSeconds(45), o.get(JoinBenchmark.IDLE_TIMEOUT));
    assertFalse(JoinBenchmark.faults(o).isNone());
    assertFalse(
        JoinBenchmark.faults(
                JoinBenchmark.SYNTAX.parse("--rows", "10", "--overlap", "0.5", "--jitter", "1ms"))
            .isNone());
    // what the parties get: the printed values parse back to the same
    assertEquals("2ms", JoinBenchmark.JITTER.print(o.get(JoinBenchmark.JITTER)));
    assertEquals(
        64L << 20,
        JoinBenchmark.SYNTAX
            .parse("--rows", "10", "--overlap", "0.5", "--drop-every", "64MiB")
            .get(JoinBenchmark.DROP_EVERY));
    // drops closer than a handshake, a size without a number: one line naming the option
    UsageException e =
        assertThrows(
            UsageException.class,
            () ->
                JoinBenchmark.SYNTAX.parse(
                    "--rows", "10", "--overlap", "0.5", "--drop-every", "1000"));
    assertTrue(e.getMessage().contains("--drop-every"), e.getMessage());
    e =
        assertThrows(
            UsageException.class,
            () ->
                JoinBenchmark.SYNTAX.parse(
                    "--rows", "10", "--overlap", "0.5", "--drop-every", "often"));
    assertTrue(e.getMessage().contains("'often'"), e.getMessage());
    assertThrows(
        UsageException.class,
        () -> JoinBenchmark.SYNTAX.parse("--rows", "10", "--overlap", "0.5", "--jitter", "2"));
  }

  @Test
  void tableGeneratorParsesToTypedValues() {
    TableGenerator.Command c =
        TableGenerator.Command.of(
            TableGenerator.SYNTAX.parse(
                "--rows",
                "1000",
                "--rows-b",
                "2000",
                "--overlap",
                "0.3",
                "--dup",
                "0.1",
                "--nulls",
                "0.05",
                "--seed",
                "42",
                "--out",
                "/tmp/t"));
    assertEquals(new GeneratorSpec(1000, 2000, 0.3, 0.1, 0.05, 42), c.spec());
    assertEquals(Path.of("/tmp/t"), c.out());
    TableGenerator.Command d =
        TableGenerator.Command.of(TableGenerator.SYNTAX.parse("--rows", "10", "--out", "x"));
    assertEquals(new GeneratorSpec(10, 10, 0.5, 0, 0, GeneratorSpec.DEFAULT_SEED), d.spec());
    // GeneratorSpec's own bound, reported as a usage error
    assertThrows(
        UsageException.class,
        () ->
            TableGenerator.Command.of(
                TableGenerator.SYNTAX.parse("--rows", "10", "--out", "x", "--dup", "1")));
  }

  @Test
  void insecureJoinParsesToTypedValues() {
    OptionValues o =
        InsecureFlinkJoin.SYNTAX.parse(
            "--a",
            "a.csv",
            "--b",
            "b.csv",
            "--sql",
            "SELECT a.id FROM a JOIN b ON a.id = b.id",
            "--parallelism",
            "3",
            "--out",
            "o",
            "--json",
            "--schema-a",
            "id BIGINT NOT NULL, name STRING",
            "--schema-b",
            "id BIGINT",
            "--managed-memory",
            "512m");
    assertEquals(Path.of("a.csv"), o.get(InsecureFlinkJoin.A));
    assertEquals(Path.of("b.csv"), o.get(InsecureFlinkJoin.B));
    assertEquals("SELECT a.id FROM a JOIN b ON a.id = b.id", o.get(InsecureFlinkJoin.SQL));
    assertEquals(3, o.get(InsecureFlinkJoin.PARALLELISM));
    assertEquals(Path.of("o"), o.get(InsecureFlinkJoin.OUT));
    assertTrue(o.get(InsecureFlinkJoin.JSON));
    TableSchema a = o.get(InsecureFlinkJoin.SCHEMA_A);
    assertEquals(InsecureFlinkJoin.parseSchema("id BIGINT NOT NULL, name STRING"), a);
    assertEquals(List.of("id", "name"), a.names());
    assertFalse(a.column(0).nullable());
    assertEquals("512m", o.get(InsecureFlinkJoin.MANAGED_MEMORY));
    // the printer and the parser agree
    assertEquals(a, InsecureFlinkJoin.parseSchema(InsecureFlinkJoin.schemaText(a)));

    OptionValues d = InsecureFlinkJoin.SYNTAX.parse("--a", "a", "--b", "b");
    assertEquals(TableGenerator.DEFAULT_QUERY, d.get(InsecureFlinkJoin.SQL));
    assertEquals(2, d.get(InsecureFlinkJoin.PARALLELISM));
    assertFalse(d.has(InsecureFlinkJoin.OUT));
    assertFalse(d.has(InsecureFlinkJoin.SCHEMA_A));
    assertEquals(InsecureFlinkJoin.DEFAULT_MANAGED_MEMORY, d.get(InsecureFlinkJoin.MANAGED_MEMORY));
  }

  @Test
  void modesAreAListOfDistinctModes() {
    assertEquals(
        java.util.List.of(io.psiflink.api.JoinMode.BOTH, io.psiflink.api.JoinMode.LABELED),
        JoinBenchmark.Modes.parse("both,labeled").modes());
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> JoinBenchmark.Modes.parse("labeled,labeled"));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> JoinBenchmark.Modes.parse("both,secret"));
  }

  @Test
  void variantsChangeOneThingAtATime() {
    var both = io.psiflink.api.JoinMode.BOTH;
    var none = io.psiflink.api.Prefilter.NONE;
    var helper = io.psiflink.api.Prefilter.HELPER;
    assertEquals(
        java.util.List.of(
            new JoinBenchmark.Variant("rounded", both, none),
            new JoinBenchmark.Variant("exact", both, none),
            new JoinBenchmark.Variant("rounded", io.psiflink.api.JoinMode.LABELED, none),
            new JoinBenchmark.Variant("rounded", both, helper)),
        JoinBenchmark.Variant.of(
            java.util.List.of("rounded", "exact"),
            java.util.List.of(both, io.psiflink.api.JoinMode.LABELED),
            JoinBenchmark.Prefilters.parse("none,helper").values()));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> JoinBenchmark.Prefilters.parse("helper,helper"));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> JoinBenchmark.Prefilters.parse("bloom"));
  }

  @Test
  void bytesBetweenOrganisationsCountTheHelperToo() throws Exception {
    var a =
        Json.parse(
            "{\"bytes_sent\": 100, \"bytes_received\": 50,"
                + " \"prefilter\": {\"bytes_to_helper\": 7, \"bytes_from_helper\": 30,"
                + " \"bytes_to_peer\": 1000, \"bytes_from_peer\": 500}}");
    var b =
        Json.parse(
            "{\"bytes_sent\": 50, \"bytes_received\": 100,"
                + " \"prefilter\": {\"bytes_to_helper\": 7, \"bytes_from_helper\": 1}}");
    assertEquals(1695, JoinBenchmark.bytesBetweenOrganisations(a, b));
    var plain = Json.parse("{\"bytes_sent\": 100, \"bytes_received\": 50}");
    assertEquals(150, JoinBenchmark.bytesBetweenOrganisations(plain, plain));
  }

  @Test
  void helpListsEveryOption() {
    assertHelpLists(
        JoinBenchmark.SYNTAX,
        "--rows",
        "--rows-b",
        "--overlap",
        "--bins",
        "--parallelism",
        "--runs",
        "--sigma",
        "--protocol",
        "--party-heap",
        "--work",
        "--seed",
        "--no-insecure",
        "--json",
        "--where-selectivity",
        "--public-size",
        "--mode",
        "--label-bytes",
        "--prefilter",
        "--filter-bits",
        "--filter-hashes",
        "--net",
        "--drop-every",
        "--drop-seed",
        "--jitter",
        "--attempts",
        "--pair-timeout",
        "--idle-timeout");
    assertHelpLists(
        TableGenerator.SYNTAX,
        "--rows",
        "--rows-b",
        "--overlap",
        "--dup",
        "--nulls",
        "--seed",
        "--out");
    assertHelpLists(
        InsecureFlinkJoin.SYNTAX,
        "--a",
        "--b",
        "--sql",
        "--parallelism",
        "--out",
        "--json",
        "--schema-a",
        "--schema-b",
        "--managed-memory");
  }

  @Test
  void wrongCommandLinesFailNamingTheOption() {
    assertFails(JoinBenchmark.SYNTAX, "--rows", "--overlap", "0.5");
    assertFails(JoinBenchmark.SYNTAX, "--overlap", "--rows", "10", "--overlap", "1.5");
    assertFails(JoinBenchmark.SYNTAX, "--rows", "--rows", "ten", "--overlap", "0.5");
    assertFails(
        JoinBenchmark.SYNTAX,
        "--where-selectivity",
        "--rows",
        "10",
        "--overlap",
        "0.5",
        "--where-selectivity",
        "0");
    assertFails(
        JoinBenchmark.SYNTAX,
        "--public-size",
        "--rows",
        "10",
        "--overlap",
        "0.5",
        "--public-size",
        "rounded,huge");
    assertFails(JoinBenchmark.SYNTAX, "--runs", "--rows", "10", "--overlap", "0.5", "--runs", "0");
    assertFails(
        JoinBenchmark.SYNTAX, "--net", "--rows", "10", "--overlap", "0.5", "--net", "100mbps,10ms");
    assertFails(JoinBenchmark.SYNTAX, "--bogus", "--rows", "10", "--overlap", "0.5", "--bogus");
    assertFails(TableGenerator.SYNTAX, "--out", "--rows", "10");
    assertFails(TableGenerator.SYNTAX, "--nulls", "--rows", "10", "--out", "x", "--nulls", "-1");
    assertFails(TableGenerator.SYNTAX, "--rows", "--rows", "1.5", "--out", "x");
    assertFails(
        InsecureFlinkJoin.SYNTAX,
        "--schema-a",
        "--a",
        "a",
        "--b",
        "b",
        "--schema-a",
        "id WHATEVER");
    assertFails(
        InsecureFlinkJoin.SYNTAX,
        "--managed-memory",
        "--a",
        "a",
        "--b",
        "b",
        "--managed-memory",
        "lots");
    assertFails(InsecureFlinkJoin.SYNTAX, "--extra", "--a", "a", "--b", "b", "--extra", "1");
  }

  @Test
  void benchCoordinatorParsesToTypedValuesWithItsDefaults() {
    OptionValues o =
        CoordinatorLoad.SYNTAX.parse(
            "--clients", "50", "--seconds", "10", "--sessions", "0", "--job-slots", "3", "--json");
    assertEquals(50, o.get(CoordinatorLoad.CLIENTS));
    assertEquals(10, o.get(CoordinatorLoad.SECONDS));
    assertEquals(0, o.get(CoordinatorLoad.SESSIONS));
    assertEquals(3, o.get(CoordinatorLoad.JOB_SLOTS));
    assertTrue(o.get(CoordinatorLoad.JSON_OUT));
    // docs/operations.md's form: the defaults
    OptionValues d = CoordinatorLoad.SYNTAX.parse();
    assertEquals(100, d.get(CoordinatorLoad.CLIENTS));
    assertEquals(60, d.get(CoordinatorLoad.SECONDS));
    assertEquals(20, d.get(CoordinatorLoad.SESSIONS));
    assertEquals(2, d.get(CoordinatorLoad.JOB_SLOTS));
    assertEquals(2000L, d.get(CoordinatorLoad.ROWS));
    IllegalArgumentException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> CoordinatorLoad.SYNTAX.parse("--job-slots", "0"));
    assertTrue(e.getMessage().contains("--job-slots"), e.getMessage());
  }

  @Test
  void benchResumeParsesToTypedValuesWithItsDefaults() {
    OptionValues o =
        ResumeBenchmark.SYNTAX.parse("--rows", "1e7", "--kill", "B", "--at", "0.25", "--runs", "3");
    assertEquals(10_000_000L, o.get(ResumeBenchmark.ROWS));
    assertEquals(io.psiflink.api.Role.B, o.get(ResumeBenchmark.KILL));
    assertEquals(0.25, o.get(ResumeBenchmark.AT));
    assertEquals(3, o.get(ResumeBenchmark.RUNS));
    OptionValues d = ResumeBenchmark.SYNTAX.parse();
    assertEquals(1_000_000L, d.get(ResumeBenchmark.ROWS));
    assertEquals(io.psiflink.api.Role.A, d.get(ResumeBenchmark.KILL));
    assertEquals(0.5, d.get(ResumeBenchmark.AT));
    for (String[] wrong : new String[][] {{"--at", "0"}, {"--kill", "C"}, {"--runs", "0"}}) {
      IllegalArgumentException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              IllegalArgumentException.class, () -> ResumeBenchmark.SYNTAX.parse(wrong));
      assertTrue(e.getMessage().contains(wrong[0]), e.getMessage());
    }
  }
}
