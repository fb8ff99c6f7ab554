package io.psiflink.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.PartyOptions;
import io.psiflink.api.PublicSize;
import io.psiflink.connectors.BadRowLimit;
import io.psiflink.connectors.TableFormat;
import io.psiflink.query.ExpectedColumns;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The command line of one party: tables, output format, bad-row limit. */
class PartyMainTest {
  /** A valid command line of party A, as a map (also for other tests of the job's options). */
  static Map<String, String> base() {
    Map<String, String> a = new HashMap<>();
    a.put("party", "A");
    a.put("table", "/data/a.csv");
    a.put("sql", "SELECT a.x FROM a JOIN b ON a.k = b.k");
    a.put("out", "/tmp/out");
    a.put("session", "s");
    a.put("bridge", "127.0.0.1:1");
    a.put("cert", "c");
    a.put("key", "k");
    a.put("ca", "ca");
    a.put("peer", "party-b");
    a.put("peer-cert-sha256", "ab".repeat(32));
    return a;
  }

  @Test
  void sigmaBelow40IsRefusedUnlessTheTestFlagIsGiven() {
    Map<String, String> a = base();
    a.put("sigma", "39");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PartyMain.config(a));
    assertTrue(e.getMessage().contains("sigma 39 is below 40"), e.getMessage());
    assertTrue(e.getMessage().contains("--insecure-test-only"), e.getMessage());
    a.put("insecure-test-only", "true");
    assertEquals(39, PartyMain.config(a).sigma());
    a.put("sigma", "40");
    a.remove("insecure-test-only");
    assertEquals(40, PartyMain.config(a).sigma());
  }

  @Test
  void aSessionWithoutAPeerPinIsRefusedUnlessTheTestFlagIsGiven() {
    Map<String, String> a = base();
    a.remove("peer-cert-sha256");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PartyMain.config(a));
    assertTrue(e.getMessage().contains("--peer-cert-sha256"), e.getMessage());
    assertTrue(e.getMessage().contains("--insecure-test-only"), e.getMessage());
    a.put("insecure-test-only", "true");
    assertEquals(null, PartyMain.config(a).peerCertificateSha256());
  }

  @Test
  void theTestFlagIsAFlagOnTheCommandLine() {
    java.util.List<String> args = new java.util.ArrayList<>();
    base().forEach((k, v) -> args.addAll(java.util.List.of("--" + k, v)));
    args.addAll(java.util.List.of("--sigma", "20", "--insecure-test-only"));
    io.psiflink.api.PartyConfiguration c = io.psiflink.api.PartyConfiguration.parse(args);
    assertEquals(true, c.get(io.psiflink.api.PartyOptions.INSECURE_TEST_ONLY));
    assertEquals(20, c.get(io.psiflink.api.PartyOptions.SIGMA));
    assertTrue(PartyConfig.of(c).insecureTestOnly());
    assertEquals(20, PartyConfig.of(c).sigma());
  }

  @Test
  void theRoleIsTyped() {
    assertEquals(io.psiflink.api.Role.A, PartyMain.config(base()).role());
    Map<String, String> a = base();
    a.put("party", "B");
    assertEquals(io.psiflink.api.Role.B, PartyMain.config(a).role());
    a.put("party", "helper");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PartyMain.config(a));
    assertTrue(e.getMessage().contains("--party: must be A or B, not 'helper'"), e.getMessage());
  }

  @Test
  void publicSizeDefaultsToRoundedAndParsesTheThreePolicies() {
    assertEquals(PublicSize.ROUNDED, PartyMain.config(base()).publicSize());
    Map<String, String> a = base();
    a.put("public-size", "exact");
    assertEquals(PublicSize.EXACT, PartyMain.config(a).publicSize());
    a.put("public-size", "declared:1e6");
    assertEquals(PublicSize.declared(1_000_000), PartyMain.config(a).publicSize());
    a.put("public-size", "declared:-1");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PartyMain.config(a));
    assertTrue(
        e.getMessage().contains("--public-size: public size must be rounded, exact or declared:N"),
        e.getMessage());
  }

  @Test
  void expectedColumnsRoundTripAnyName() {
    java.util.List<io.psiflink.api.Column> cols =
        java.util.List.of(
            new io.psiflink.api.Column("a,b:c d%", io.psiflink.api.ColumnType.STRING, true),
            new io.psiflink.api.Column("n", io.psiflink.api.ColumnType.BIGINT, true));
    Map<String, String> a = base();
    a.put("expected-columns", ExpectedColumns.format(cols));
    assertEquals(cols, PartyMain.config(a).expectedColumns());
    assertEquals(null, PartyMain.config(base()).expectedColumns());
  }

  @Test
  void outputFormatFromFormatThenExtensionThenAvro() {
    assertEquals(TableFormat.AVRO, PartyMain.config(base()).outFormat());
    Map<String, String> a = base();
    a.put("out", "hdfs://nn:8020/r/joined.PARQUET/");
    assertEquals(TableFormat.PARQUET, PartyMain.config(a).outFormat());
    a.put("format", "csv");
    assertEquals(TableFormat.CSV, PartyMain.config(a).outFormat());
    a.put("format", "orc");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PartyMain.config(a));
    assertTrue(e.getMessage().contains("avro, parquet or csv, not 'orc'"), e.getMessage());
  }

  @Test
  void aJdbcTableNameJoinsTheUrl() {
    Map<String, String> a = base();
    a.put("table", "jdbc:postgresql://db:5432/crm?user=psi");
    a.put("table-name", "customers");
    assertEquals(
        "jdbc:postgresql://db:5432/crm?user=psi&table=customers", PartyMain.config(a).table());
    a.put("table", "/data/a.csv");
    assertThrows(IllegalArgumentException.class, () -> PartyMain.config(a));
  }

  @Test
  void badRowLimitDefaultsToOnePercent() {
    assertEquals(BadRowLimit.parse("1%"), PartyMain.config(base()).maxBadRows());
    Map<String, String> a = base();
    a.put("max-bad-rows", "250");
    assertEquals(BadRowLimit.parse("250"), PartyMain.config(a).maxBadRows());
    a.put("max-bad-rows", "lots");
    assertThrows(IllegalArgumentException.class, () -> PartyMain.config(a));
  }

  @Test
  void csvDelimiterAndQuote() {
    assertEquals(io.psiflink.connectors.CsvOptions.DEFAULT, PartyMain.config(base()).csv());
    Map<String, String> a = base();
    a.put("csv-delimiter", ";");
    a.put("csv-quote", "'");
    assertEquals(io.psiflink.connectors.CsvOptions.of(';', '\''), PartyMain.config(a).csv());
    a.put("csv-delimiter", "tab");
    assertEquals('\t', PartyMain.config(a).csv().delimiter());
    a.put("csv-delimiter", ";;");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PartyMain.config(a));
    assertTrue(e.getMessage().contains("--csv-delimiter: must be one character"), e.getMessage());
    a.put("csv-delimiter", "\u00e9");
    assertThrows(IllegalArgumentException.class, () -> PartyMain.config(a));
  }

  @Test
  void thePrefilterNeedsAHelperAndItsPinUnlessTheTestFlagIsGiven() {
    Map<String, String> a = base();
    a.put("prefilter", "helper");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PartyMain.config(a));
    assertTrue(e.getMessage().contains("--prefilter helper needs --helper"), e.getMessage());
    a.put("helper", "the-helper");
    e = assertThrows(IllegalArgumentException.class, () -> PartyMain.config(a));
    assertTrue(e.getMessage().contains("--helper-cert-sha256"), e.getMessage());
    assertTrue(e.getMessage().contains("--insecure-test-only"), e.getMessage());
    a.put("insecure-test-only", "true");
    assertEquals(null, PartyMain.config(a).helperCertificateSha256());
    a.remove("insecure-test-only");
    a.put("helper-cert-sha256", "cd".repeat(32));
    a.put("filter-bits", "20");
    a.put("filter-hashes", "3");
    PartyConfig c = PartyMain.config(a);
    assertEquals(io.psiflink.api.Prefilter.HELPER, c.prefilter());
    assertEquals("the-helper", c.helper());
    assertEquals(20, c.filterBits());
    assertEquals(3, c.filterHashes());
    assertEquals((byte) 0xcd, c.helperCertificateSha256()[31]);
    a.put("filter-bits", "15");
    e = assertThrows(IllegalArgumentException.class, () -> PartyMain.config(a));
    assertTrue(
        e.getMessage().contains("--filter-bits must be 0 (automatic) or lie in [16, 36], not 15"),
        e.getMessage());
    a.put("filter-bits", "0");
    a.put("filter-hashes", "17");
    e = assertThrows(IllegalArgumentException.class, () -> PartyMain.config(a));
    assertTrue(e.getMessage().contains("--filter-hashes"), e.getMessage());
  }

  /** Refused before the handshake, naming why: what B (labeled) or A (COUNT) would learn. */
  @Test
  void thePrefilterIsRefusedWithTheLabeledModeAndWithCount() throws Exception {
    Map<String, String> a = base();
    a.put("prefilter", "helper");
    a.put("helper", "h");
    a.put("helper-cert-sha256", "cd".repeat(32));
    PartyConfig plain = PartyMain.config(a);
    PrivateJoinJob.checkPrefilter(plain, io.psiflink.query.JoinQuery.parse(plain.sql()));
    a.put("mode", "labeled");
    PartyConfig labeled = PartyMain.config(a);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                PrivateJoinJob.checkPrefilter(
                    labeled, io.psiflink.query.JoinQuery.parse(labeled.sql())));
    assertTrue(
        e.getMessage().contains("refused with --mode labeled: B would learn its candidates"),
        e.getMessage());
    a.remove("mode");
    a.put("sql", "SELECT COUNT(DISTINCT a.k) FROM a JOIN b ON a.k = b.k");
    PartyConfig count = PartyMain.config(a);
    e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                PrivateJoinJob.checkPrefilter(
                    count, io.psiflink.query.JoinQuery.parse(count.sql())));
    assertTrue(
        e.getMessage().contains("refused with SELECT COUNT(...): A would learn"), e.getMessage());
  }

  /** An n-party job's options: P1..Pn of --parties, every peer and the provider pinned. */
  private static Map<String, String> group(String party) {
    Map<String, String> a = base();
    a.remove("peer");
    a.remove("peer-cert-sha256");
    a.put("party", party);
    a.put("sql", "SELECT a.x FROM a JOIN b ON a.k = b.k JOIN c ON a.k = c.k");
    a.put("parties", "org-1,org-2,org-3");
    a.put("party-cert-sha256s", "-," + "cd".repeat(32) + "," + "ef".repeat(32));
    a.put("provider", "prov");
    a.put("provider-cert-sha256", "01".repeat(32));
    return a;
  }

  @Test
  void anNPartyJobPlaysPartyIOfTheGroup() {
    PartyConfig c = PartyMain.config(group("P1"));
    assertEquals(io.psiflink.api.Role.party(0, 3), c.role());
    assertEquals("mpsi", c.protocol());
    assertEquals(List.of("org-1", "org-2", "org-3"), c.group().parties());
    assertEquals(null, c.group().pins().get(0));
    assertEquals(null, c.peer());
    Map<String, String> p3 = group("P3");
    p3.remove("out");
    p3.put("party-cert-sha256s", "ab".repeat(32) + "," + "cd".repeat(32) + ",-");
    assertEquals(io.psiflink.api.Role.party(2, 3), PartyMain.config(p3).role());
  }

  @Test
  void anNPartyJobRefusesWhatItCannotRun() {
    for (Map.Entry<String, String> bad :
        List.of(
            Map.entry("party", "A"), // a two-party role
            Map.entry("party", "P4"), // not one of three
            Map.entry("parties", "org-1,org-2"), // two parties: --peer
            Map.entry("parties", "org-1,org-2,org-2"), // a party twice
            Map.entry("mode", "labeled"),
            Map.entry("protocol", "kkrt"),
            Map.entry("peer", "org-2"))) {
      Map<String, String> a = group("P1");
      a.put(bad.getKey(), bad.getValue());
      assertThrows(IllegalArgumentException.class, () -> PartyMain.config(a), bad.toString());
    }
    Map<String, String> noOut = group("P1");
    noOut.remove("out");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PartyMain.config(noOut));
    assertTrue(e.getMessage().contains("P1 writes the joined table"), e.getMessage());
    // pins: every other party's and the provider's, unless the test flag
    Map<String, String> unpinned = group("P2");
    unpinned.remove("out");
    unpinned.put("party-cert-sha256s", "ab".repeat(32) + ",-," + "ef".repeat(32));
    assertEquals(null, PartyMain.config(unpinned).group().pins().get(1));
    unpinned.put("party-cert-sha256s", "ab".repeat(32) + ",-,-");
    e = assertThrows(IllegalArgumentException.class, () -> PartyMain.config(unpinned));
    assertTrue(e.getMessage().contains("party 'org-3'"), e.getMessage());
    unpinned.put(PartyOptions.INSECURE_TEST_ONLY.name(), "true");
    assertEquals(null, PartyMain.config(unpinned).group().pins().get(2));
  }

  @Test
  void aTwoPartyJobStillNeedsItsPeer() {
    Map<String, String> a = base();
    a.remove("peer");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PartyMain.config(a));
    assertTrue(e.getMessage().contains("--peer"), e.getMessage());
  }
}
