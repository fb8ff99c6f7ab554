package io.psiflink.tools.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.HostPort;
import io.psiflink.api.OptionValues;
import io.psiflink.api.OutputFormat;
import io.psiflink.api.PartyConfiguration;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.PublicSize;
import io.psiflink.api.Role;
import io.psiflink.api.UsageException;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.ThrowawayPki;
import io.psiflink.jobs.PartyConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line {@code ./psi local} gives each party's job: the job's own parser reads it back
 * as the configuration meant (written out here option by option), and the job accepts it.
 */
class LocalJoinCommandLineTest {
  @TempDir Path dir;

  @Test
  void eachPartysCommandLineParsesToTheIntendedConfiguration() throws Exception {
    ThrowawayPki pki = ThrowawayPki.create(dir.resolve("pki"), "party-a", "party-b", "bridge");
    PartyCredentials ca = pki.credentials("party-a");
    PartyCredentials cb = pki.credentials("party-b");
    Map<String, String> m = new HashMap<>();
    m.put("a", "/data/a.csv");
    m.put("b", "jdbc:postgresql://db:5432/crm?user=psi&password=secret");
    m.put("b-table", "people");
    m.put("a-delimiter", ";");
    m.put("sql", "SELECT a.x, b.y FROM a JOIN b ON a.k = b.k");
    m.put("out", "/r/joined.parquet/");
    m.put("format", "csv");
    m.put("bins", "8");
    m.put("sigma", "30");
    m.put("insecure-test-only", "true");
    m.put("public-size", "exact");
    m.put("b-public-size", "declared:5000");
    m.put("pair-timeout", "7");
    m.put("max-bad-rows", "5%");
    m.put("party-heap", "512m");
    OptionValues o = LocalJoin.options(m);
    Path work = dir.resolve("work");
    String pinA = LocalJoin.sha256(ca);
    String pinB = LocalJoin.sha256(cb);

    PartyConfiguration a =
        LocalJoin.partyConfiguration(o, Role.A, ca, "party-b", pinB, "s1", 4711, work, null, false);
    PartyConfiguration intendedA =
        PartyConfiguration.empty()
            .with(PartyOptions.PARTY, Role.A)
            .with(PartyOptions.TABLE, "/data/a.csv")
            .with(PartyOptions.CSV_DELIMITER, ';')
            .with(PartyOptions.SQL, "SELECT a.x, b.y FROM a JOIN b ON a.k = b.k")
            .with(PartyOptions.OUT, "/r/joined.parquet/")
            .with(PartyOptions.FORMAT, OutputFormat.CSV)
            .with(PartyOptions.QUARANTINE, "/r/joined.parquet.quarantine/a")
            .with(PartyOptions.MAX_BAD_ROWS, "5%")
            .with(PartyOptions.SESSION, "s1")
            .with(PartyOptions.BRIDGE, new HostPort("127.0.0.1", 4711))
            .with(PartyOptions.CERT, ca.certChainPem())
            .with(PartyOptions.KEY, ca.privateKeyPem())
            .with(PartyOptions.CA, ca.trustedCaPem())
            .with(PartyOptions.PEER, "party-b")
            .with(PartyOptions.PEER_CERT_SHA256, pinB)
            .with(PartyOptions.BINS, 8)
            .with(PartyOptions.SIGMA, 30)
            .with(PartyOptions.PAIR_TIMEOUT, Duration.ofSeconds(7))
            .with(PartyOptions.PUBLIC_SIZE, PublicSize.EXACT)
            .with(PartyOptions.INSECURE_TEST_ONLY, true)
            .with(PartyOptions.WORK, work.resolve("party-A").toString())
            .with(PartyOptions.SUMMARY, work.resolve("summary-A.json"));
    assertEquals(intendedA, PartyConfiguration.parse(a.toArgs()));

    PartyConfiguration b =
        LocalJoin.partyConfiguration(o, Role.B, cb, "party-a", pinA, "s1", 4712, work, null, false);
    PartyConfiguration parsedB = PartyConfiguration.parse(b.toArgs());
    assertEquals(Role.B, parsedB.role());
    // the password stays off the command line (the party's environment carries it)
    assertEquals("jdbc:postgresql://db:5432/crm?user=psi", parsedB.get(PartyOptions.TABLE));
    assertFalse(String.join(" ", b.toArgs()).contains("secret"), b.toString());
    assertEquals("people", parsedB.get(PartyOptions.TABLE_NAME));
    assertFalse(parsedB.has(PartyOptions.OUT));
    assertFalse(parsedB.has(PartyOptions.FORMAT));
    assertFalse(parsedB.has(PartyOptions.CSV_DELIMITER));
    assertEquals(
        new PublicSize(PublicSize.Policy.DECLARED, 5000), parsedB.get(PartyOptions.PUBLIC_SIZE));
    assertEquals("/r/joined.parquet.quarantine/b", parsedB.get(PartyOptions.QUARANTINE));
    assertEquals(pinA, parsedB.get(PartyOptions.PEER_CERT_SHA256));

    // and the job takes both
    PartyConfig jobA = PartyConfig.of(PartyConfiguration.parse(a.toArgs()));
    assertEquals(io.psiflink.connectors.TableFormat.CSV, jobA.outFormat());
    assertEquals(';', jobA.csv().delimiter());
    PartyConfig jobB = PartyConfig.of(parsedB);
    assertEquals("jdbc:postgresql://db:5432/crm?user=psi&table=people", jobB.table());
    assertEquals(Role.B, jobB.role());
  }

  /** --prefilter helper: both parties get the helper's name, its pin, L and k; the job takes it. */
  @Test
  void noResumeReachesBothPartiesAndAResumedRunIsOneOfTheTwo() throws Exception {
    ThrowawayPki pki = ThrowawayPki.create(dir.resolve("pki"), "party-a", "party-b", "bridge");
    PartyCredentials ca = pki.credentials("party-a");
    PartyCredentials cb = pki.credentials("party-b");
    Map<String, String> m = new HashMap<>();
    m.put("a", "/data/a.csv");
    m.put("b", "/data/b.csv");
    m.put("sql", "SELECT a.x, b.y FROM a JOIN b ON a.k = b.k");
    m.put("out", "/r/out");
    Path work = dir.resolve("work");
    for (boolean keep : List.of(true, false)) {
      if (!keep) {
        m.put("no-resume", "true");
      }
      for (Role role : List.of(Role.A, Role.B)) {
        PartyConfig job =
            PartyConfig.of(
                PartyConfiguration.parse(
                    LocalJoin.partyConfiguration(
                            LocalJoin.options(m),
                            role,
                            role.equals(Role.A) ? ca : cb,
                            role.equals(Role.A) ? "party-b" : "party-a",
                            LocalJoin.sha256(role.equals(Role.A) ? cb : ca),
                            "s1",
                            1,
                            work,
                            null,
                            false)
                        .toArgs()));
        assertEquals(keep, job.resumable(), role + " " + m);
        assertFalse(job.resume());
      }
    }
    IllegalArgumentException both =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () ->
                PartyConfig.of(
                    PartyConfiguration.parse(
                        LocalJoin.partyConfiguration(
                                LocalJoin.options(m),
                                Role.A,
                                ca,
                                "party-b",
                                LocalJoin.sha256(cb),
                                "s1",
                                1,
                                work,
                                null,
                                true)
                            .toArgs())));
    assertTrue(both.getMessage().contains("contradict"), both.getMessage());
  }

  @Test
  void thePrefilterReachesBothPartiesWithTheHelpersPin() throws Exception {
    ThrowawayPki pki =
        ThrowawayPki.create(dir.resolve("pki"), "party-a", "party-b", "bridge", LocalJoin.HELPER);
    PartyCredentials ca = pki.credentials("party-a");
    PartyCredentials cb = pki.credentials("party-b");
    String pinHelper = LocalJoin.sha256(pki.credentials(LocalJoin.HELPER));
    Map<String, String> m = new HashMap<>();
    m.put("a", "/data/a.csv");
    m.put("b", "/data/b.csv");
    m.put("sql", "SELECT a.x, b.y FROM a JOIN b ON a.k = b.k");
    m.put("out", "/r/out");
    m.put("prefilter", "helper");
    m.put("filter-bits", "22");
    m.put("filter-hashes", "3");
    OptionValues o = LocalJoin.options(m);
    Path work = dir.resolve("work");
    for (Role role : List.of(Role.A, Role.B)) {
      PartyCredentials me = role.equals(Role.A) ? ca : cb;
      PartyConfiguration c =
          LocalJoin.partyConfiguration(
              o,
              role,
              me,
              role.equals(Role.A) ? "party-b" : "party-a",
              LocalJoin.sha256(role.equals(Role.A) ? cb : ca),
              "s1",
              4711,
              work,
              pinHelper,
              false);
      PartyConfig job = PartyConfig.of(PartyConfiguration.parse(c.toArgs()));
      assertEquals(io.psiflink.api.Prefilter.HELPER, job.prefilter());
      assertEquals(LocalJoin.HELPER, job.helper());
      assertEquals(pinHelper, java.util.HexFormat.of().formatHex(job.helperCertificateSha256()));
      assertEquals(22, job.filterBits());
      assertEquals(3, job.filterHashes());
    }
    // without --prefilter no party hears of a helper
    m.remove("prefilter");
    PartyConfig plain =
        PartyConfig.of(
            PartyConfiguration.parse(
                LocalJoin.partyConfiguration(
                        LocalJoin.options(m),
                        Role.A,
                        ca,
                        "party-b",
                        "ab".repeat(32),
                        "s1",
                        1,
                        work,
                        null,
                        false)
                    .toArgs()));
    assertEquals(io.psiflink.api.Prefilter.NONE, plain.prefilter());
    assertEquals(null, plain.helper());
  }

  @Test
  void theLocalCommandLineKeepsItsOptionNamesAndNamesWhatIsWrong() {
    OptionValues o =
        LocalJoin.SYNTAX.parse(
            "--a",
            "a.csv",
            "--b",
            "b.csv",
            "--sql",
            "S",
            "--out",
            "o",
            "--json",
            "--a-table",
            "t",
            "--b-delimiter",
            "tab",
            "--quarantine",
            "q",
            "--a-public-size",
            "exact",
            "--work",
            "w",
            "--party-heap",
            "1g",
            "--protocol",
            "ecdh",
            "--protocol-params",
            "output=cardinality",
            "--parallelism",
            "3",
            "--attempts",
            "1",
            "--idle-timeout",
            "9",
            "--max-bad-rows",
            "2");
    assertTrue(o.get(LocalJoin.JSON));
    assertEquals('\t', o.get(LocalJoin.B_DELIMITER));
    assertEquals(PublicSize.EXACT, o.get(LocalJoin.A_PUBLIC_SIZE));
    UsageException missing =
        assertThrows(
            UsageException.class,
            () -> LocalJoin.SYNTAX.parse("--a", "a.csv", "--sql", "S", "--out", "o"));
    assertTrue(missing.getMessage().contains("--b"), missing.getMessage());
    UsageException unknown =
        assertThrows(
            UsageException.class,
            () ->
                LocalJoin.SYNTAX.parse(
                    "--a", "a", "--b", "b", "--sql", "S", "--out", "o", "--party", "A"));
    assertTrue(unknown.getMessage().contains("--party"), unknown.getMessage());
    for (String option : List.of("--a", "--b", "--sql", "--out", "--public-size", "--json")) {
      assertTrue(LocalJoin.SYNTAX.usage().contains(option), option);
    }
  }

  /**
   * Both parties run on threads of ./psi local's JVM exactly when both tables are files of at most
   * 256 MiB and nothing asks for a process: --party-jvms, or a launch prefix.
   */
  @Test
  void partiesRunOnThreadsOnlyForSmallFileTablesAndNoProcessAsked() throws Exception {
    Path small = dir.resolve("small.csv");
    java.nio.file.Files.writeString(small, "id\n1\n");
    Path big = dir.resolve("big.csv");
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(big.toFile(), "rw")) {
      f.setLength(io.psiflink.coordinator.JvmOptions.C1_ONLY_MAX_BYTES + 1); // sparse
    }
    Path limit = dir.resolve("limit.csv");
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(limit.toFile(), "rw")) {
      f.setLength(io.psiflink.coordinator.JvmOptions.C1_ONLY_MAX_BYTES);
    }
    String jdbc = "jdbc:postgresql://db:5432/crm?user=psi&table=t";
    LocalJoin.Hooks prefixed =
        new LocalJoin.Hooks() {
          @Override
          public List<String> launchPrefix(Role party) {
            return party.equals(Role.B) ? List.of("nice") : List.of();
          }
        };
    String s = small.toString();
    assertTrue(onThreads(s, limit.toString(), Map.of(), LocalJoin.Hooks.NONE));
    assertFalse(onThreads(s, big.toString(), Map.of(), LocalJoin.Hooks.NONE));
    assertFalse(onThreads(big.toString(), s, Map.of(), LocalJoin.Hooks.NONE));
    assertFalse(onThreads(s, jdbc, Map.of(), LocalJoin.Hooks.NONE));
    assertFalse(
        onThreads(s, dir.resolve("missing.csv").toString(), Map.of(), LocalJoin.Hooks.NONE));
    assertFalse(onThreads(s, s, Map.of("party-jvms", "true"), LocalJoin.Hooks.NONE));
    assertFalse(onThreads(s, s, Map.of(), prefixed));
  }

  private static boolean onThreads(
      String a, String b, Map<String, String> more, LocalJoin.Hooks hooks) {
    Map<String, String> m = new HashMap<>(more);
    m.put("a", a);
    m.put("b", b);
    m.put("sql", "SELECT a.id FROM a JOIN b ON a.id = b.id");
    m.put("out", "/tmp/out");
    return LocalJoin.partiesOnThreads(LocalJoin.options(m), hooks);
  }
}
