package io.psiflink.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.PublicSize;
import io.psiflink.connectors.BadRowLimit;
import io.psiflink.connectors.TableFormat;
import io.psiflink.query.ExpectedColumns;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The command line of one party: tables, output format, bad-row limit. */
class PartyMainTest {
  private static Map<String, String> base() {
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
}
