package io.psiflink.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The job's command line: printing then parsing is the identity over many configurations, the
 * parser reads what a person would write (both option forms, the existing names), and every problem
 * names its option.
 */
class PartyConfigurationTest {
  private static final String PIN = "ab".repeat(32);

  /** The least a job needs, as a person would type it. */
  private static List<String> minimal() {
    return new ArrayList<>(
        List.of(
            "--party",
            "A",
            "--table",
            "/data/a.csv",
            "--sql",
            "SELECT a.x FROM a JOIN b ON a.k = b.k",
            "--session",
            "s1",
            "--bridge",
            "127.0.0.1:7443",
            "--cert",
            "c.pem",
            "--key",
            "k.pem",
            "--ca",
            "ca.pem",
            "--peer",
            "party-b"));
  }

  @Test
  void aHandWrittenCommandLineYieldsTheTypedValues() {
    List<String> args = minimal();
    args.addAll(
        List.of(
            "--sigma=41",
            "--public-size",
            "declared:1e6",
            "--format",
            "PARQUET",
            "--csv-delimiter",
            "tab",
            "--pair-timeout",
            "30",
            "--peer-cert-sha256",
            PIN.toUpperCase(),
            "--insecure-test-only"));
    PartyConfiguration c = PartyConfiguration.parse(args);
    assertEquals(Role.A, c.role());
    assertEquals("/data/a.csv", c.get(PartyOptions.TABLE));
    assertEquals(new HostPort("127.0.0.1", 7443), c.get(PartyOptions.BRIDGE));
    assertEquals(Path.of("ca.pem"), c.get(PartyOptions.CA));
    assertEquals(41, c.get(PartyOptions.SIGMA));
    assertEquals(
        new PublicSize(PublicSize.Policy.DECLARED, 1_000_000), c.get(PartyOptions.PUBLIC_SIZE));
    assertEquals(OutputFormat.PARQUET, c.get(PartyOptions.FORMAT));
    assertEquals('\t', c.get(PartyOptions.CSV_DELIMITER));
    assertEquals(Duration.ofSeconds(30), c.get(PartyOptions.PAIR_TIMEOUT));
    assertEquals(PIN, c.get(PartyOptions.PEER_CERT_SHA256));
    assertTrue(c.get(PartyOptions.INSECURE_TEST_ONLY));
    // absent options: their declared defaults
    assertEquals(0, c.get(PartyOptions.BINS));
    assertEquals(2, c.get(PartyOptions.PARALLELISM));
    assertEquals(3, c.get(PartyOptions.ATTEMPTS));
    assertEquals("rr22", c.get(PartyOptions.PROTOCOL));
    assertEquals("1%", c.get(PartyOptions.MAX_BAD_ROWS));
    assertEquals(
        PublicSize.ROUNDED, PartyConfiguration.parse(minimal()).get(PartyOptions.PUBLIC_SIZE));
    assertEquals(null, c.get(PartyOptions.OUT));
    assertTrue(!PartyConfiguration.parse(minimal()).get(PartyOptions.INSECURE_TEST_ONLY));
  }

  @Test
  void printingThenParsingIsTheIdentity() {
    Random r = new Random(17);
    for (int i = 0; i < 300; i++) {
      PartyConfiguration c = random(r);
      List<String> args = c.toArgs();
      assertEquals(c, PartyConfiguration.parse(args), String.join(" ", args));
      // and printing is stable: the parsed value prints the same line
      assertEquals(args, PartyConfiguration.parse(args).toArgs());
    }
  }

  /** Every option set, most of the time, to values a parser could trip on. */
  private static PartyConfiguration random(Random r) {
    String[] texts = {
      "x",
      "a b",
      "--party",
      "-",
      "-x",
      "k=v,z=w",
      "é ü",
      "'\"",
      "a=b",
      "@file",
      "SELECT a.x FROM a JOIN b ON a.k = b.k WHERE a.s = '--sql'",
      "hdfs://nn:8020/p",
      " "
    };
    PartyConfiguration c =
        PartyConfiguration.empty().with(PartyOptions.PARTY, r.nextBoolean() ? Role.A : Role.B);
    for (TypedOption<String> o :
        List.of(
            PartyOptions.TABLE,
            PartyOptions.TABLE_NAME,
            PartyOptions.SQL,
            PartyOptions.OUT,
            PartyOptions.QUARANTINE,
            PartyOptions.MAX_BAD_ROWS,
            PartyOptions.SESSION,
            PartyOptions.PEER,
            PartyOptions.PROTOCOL,
            PartyOptions.WORK,
            PartyOptions.EXPECTED_COLUMNS)) {
      if (o.required() || r.nextInt(4) > 0) {
        c = c.with(o, texts[r.nextInt(texts.length)]);
      }
    }
    if (r.nextBoolean()) {
      c = c.with(PartyOptions.PROTOCOL_PARAMS, r.nextBoolean() ? "" : "filter=gcs");
    }
    if (r.nextBoolean()) {
      c = c.with(PartyOptions.FORMAT, OutputFormat.values()[r.nextInt(3)]);
    }
    if (r.nextBoolean()) {
      c = c.with(PartyOptions.CSV_DELIMITER, ",;\t-|x".charAt(r.nextInt(6)));
    }
    if (r.nextBoolean()) {
      c = c.with(PartyOptions.CSV_QUOTE, "\"'-".charAt(r.nextInt(3)));
    }
    c =
        c.with(
            PartyOptions.BRIDGE,
            new HostPort(r.nextBoolean() ? "bridge.example" : "[::1]", 1 + r.nextInt(65535)));
    c =
        c.with(PartyOptions.CERT, Path.of("/s/c" + r.nextInt(9) + ".pem"))
            .with(PartyOptions.KEY, Path.of("k.pem"))
            .with(PartyOptions.CA, Path.of("/ca dir/ca.pem"));
    if (r.nextBoolean()) {
      byte[] b = new byte[32];
      r.nextBytes(b);
      c = c.with(PartyOptions.PEER_CERT_SHA256, java.util.HexFormat.of().formatHex(b));
    }
    if (r.nextBoolean()) {
      c = c.with(PartyOptions.BINS, r.nextInt(5000));
    }
    if (r.nextBoolean()) {
      c = c.with(PartyOptions.SIGMA, 1 + r.nextInt(128));
    }
    if (r.nextBoolean()) {
      c = c.with(PartyOptions.PARALLELISM, 1 + r.nextInt(64));
    }
    if (r.nextBoolean()) {
      c = c.with(PartyOptions.ATTEMPTS, 1 + r.nextInt(5));
    }
    if (r.nextBoolean()) {
      c = c.with(PartyOptions.PAIR_TIMEOUT, Duration.ofSeconds(1 + r.nextInt(600)));
    }
    if (r.nextBoolean()) {
      c = c.with(PartyOptions.IDLE_TIMEOUT, Duration.ofSeconds(1 + r.nextInt(600)));
    }
    if (r.nextBoolean()) {
      c = c.with(PartyOptions.SUMMARY, Path.of("/w/summary-" + r.nextInt(3) + ".json"));
    }
    if (r.nextBoolean()) {
      c =
          c.with(
              PartyOptions.PUBLIC_SIZE,
              switch (r.nextInt(3)) {
                case 0 -> PublicSize.ROUNDED;
                case 1 -> PublicSize.EXACT;
                default -> new PublicSize(PublicSize.Policy.DECLARED, r.nextLong(1L << 50));
              });
    }
    if (r.nextInt(3) == 0) { // an n-party job's options
      int n = 3 + r.nextInt(4);
      List<String> names = new java.util.ArrayList<>();
      List<String> pins = new java.util.ArrayList<>();
      for (int i = 0; i < n; i++) {
        names.add("org-" + i + (r.nextBoolean() ? ".example" : ""));
        byte[] b = new byte[32];
        r.nextBytes(b);
        pins.add(r.nextBoolean() ? "-" : java.util.HexFormat.of().formatHex(b));
      }
      c =
          c.with(PartyOptions.PARTY, Role.parse("P" + (1 + r.nextInt(n)), PartyOptions.MAX_PARTIES))
              .with(PartyOptions.PARTIES, names)
              .with(PartyOptions.PARTY_CERT_SHA256S, pins)
              .with(PartyOptions.PROVIDER, "provider." + r.nextInt(9));
    }
    return c.with(PartyOptions.INSECURE_TEST_ONLY, r.nextBoolean());
  }

  @Test
  void anUnknownOptionIsNamed() {
    List<String> args = minimal();
    args.addAll(List.of("--sigmaa", "40"));
    UsageException e = assertThrows(UsageException.class, () -> PartyConfiguration.parse(args));
    assertTrue(e.getMessage().contains("--sigmaa"), e.getMessage());
    assertTrue(e.usage().contains("--sigma=S"), e.usage());
  }

  @Test
  void aMissingRequiredOptionIsNamed() {
    for (String required :
        List.of(
            "--party", "--table", "--sql", "--session", "--bridge", "--cert", "--key", "--ca")) {
      List<String> args = minimal();
      int i = args.indexOf(required);
      args.remove(i + 1);
      args.remove(i);
      UsageException e = assertThrows(UsageException.class, () -> PartyConfiguration.parse(args));
      assertTrue(e.getMessage().contains(required), required + ": " + e.getMessage());
    }
  }

  @Test
  void aMalformedOrRepeatedValueIsNamed() {
    for (List<String> bad :
        List.of(
            List.of("--sigma", "forty"),
            List.of("--party", "C"),
            List.of("--bridge", "nohost"),
            List.of("--format", "orc"),
            List.of("--public-size", "declared:-1"),
            List.of("--csv-delimiter", ";;"),
            List.of("--peer-cert-sha256", "abc"),
            List.of("--parallelism", "0"),
            List.of("--pair-timeout", "0"),
            List.of("--peer", "again"),
            List.of("--sql", ""))) {
      List<String> args = minimal();
      args.addAll(bad);
      UsageException e =
          assertThrows(UsageException.class, () -> PartyConfiguration.parse(args), bad.toString());
      assertTrue(e.getMessage().contains(bad.get(0)), bad + ": " + e.getMessage());
    }
  }

  @Test
  void theGeneratedHelpListsEveryOptionWithItsDefault() {
    String help = PartyConfiguration.usage();
    for (TypedOption<?> o : PartyOptions.ALL) {
      assertTrue(help.contains(o.flagName()), o.flagName() + " in " + help);
    }
    assertTrue(help.contains("(default: 40)"), help);
    assertTrue(help.contains("(default: 1%)"), help);
  }

  @Test
  void aValueSetInCodeIsCheckedLikeOneOnTheCommandLine() {
    UsageException e =
        assertThrows(
            UsageException.class, () -> PartyConfiguration.empty().with(PartyOptions.SIGMA, 0));
    assertTrue(e.getMessage().startsWith("--sigma: "), e.getMessage());
    assertEquals(
        PIN,
        PartyConfiguration.empty()
            .with(PartyOptions.PEER_CERT_SHA256, PIN.toUpperCase())
            .get(PartyOptions.PEER_CERT_SHA256));
  }
}
