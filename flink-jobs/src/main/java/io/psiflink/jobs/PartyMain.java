package io.psiflink.jobs;

import io.psiflink.query.ExpectedColumns;
import io.psiflink.query.PublicSize;
import io.psiflink.connectors.BadRowLimit;
import io.psiflink.connectors.CsvOptions;
import io.psiflink.connectors.JdbcTable;
import io.psiflink.connectors.TableFormat;
import io.psiflink.jobs.psi.BridgeEndpoint;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * Runs one party's private join job: {@code PartyMain --party A|B --table PATH --sql SQL ...}. On a
 * laptop the job runs on an embedded Flink MiniCluster; inside {@code flink run} on the cluster.
 * Prints a summary; exits 1 with the cause in plain words when the join fails.
 */
public final class PartyMain {
  private static final Set<String> FLAGS = Set.of("party", "table", "sql", "out", "format",
      "quarantine", "session", "bridge", "cert", "key", "ca", "peer", "bins", "sigma", "protocol",
      "protocol-params", "parallelism", "attempts", "work", "pair-timeout", "idle-timeout",
      "summary", "table-name", "max-bad-rows", "csv-delimiter", "csv-quote",
      "peer-cert-sha256", "public-size", "expected-columns", "insecure-test-only");

  private static final String USAGE = "usage: PartyMain --party A|B --table PATH|JDBC_URL "
      + "[--table-name T] --sql SQL "
      + "--session ID --bridge HOST:PORT --cert PEM --key PEM --ca PEM --peer NAME "
      + "[--peer-cert-sha256 HEX] [--out DIR] "
      + "[--format avro|parquet|csv] [--quarantine DIR] [--max-bad-rows N|P%] "
      + "[--csv-delimiter C] [--csv-quote C] [--bins M] "
      + "[--sigma S] [--protocol P] "
      + "[--protocol-params K=V,...] [--parallelism P] [--attempts N] [--work DIR] "
      + "[--pair-timeout S] [--idle-timeout S] [--summary FILE] "
      + "[--public-size rounded|exact|declared:N] [--expected-columns NAME:TYPE,...] "
      + "[" + PartyConfig.INSECURE_FLAG + "]\n"
      + "  --peer-cert-sha256 is required and --sigma must be >= " + PartyConfig.MIN_SIGMA
      + " unless " + PartyConfig.INSECURE_FLAG + " (for tests only) is given";

  private PartyMain() {}

  public static void main(String[] args) {
    PartyConfig cfg;
    String summaryFile;
    try {
      Map<String, String> a = parse(args);
      summaryFile = a.get("summary");
      cfg = config(a);
    } catch (IllegalArgumentException e) {
      System.err.println("psi party: " + e.getMessage());
      System.exit(2);
      return;
    }
    try {
      JobSummary s = PrivateJoinJob.run(cfg);
      System.out.println(s.describe());
      if (summaryFile != null) {
        Files.writeString(Path.of(summaryFile), s.toJson(), StandardCharsets.UTF_8);
      }
      System.exit(0);
    } catch (Throwable t) {
      System.err.println("psi party " + cfg.party() + " failed: " + Errors.explain(t));
      org.slf4j.LoggerFactory.getLogger(PartyMain.class).error("party {} failed", cfg.party(), t);
      System.exit(1);
    }
  }

  static Map<String, String> parse(String[] args) {
    Args p = new Args(args, USAGE, Set.of(PartyConfig.INSECURE_FLAG));
    Map<String, String> values = p.values(FLAGS);
    p.finish();
    return values;
  }

  static PartyConfig config(Map<String, String> a) {
    String party = require(a, "party");
    if (!party.equals("A") && !party.equals("B")) {
      throw new IllegalArgumentException("--party must be A or B, not '" + party + "'");
    }
    String[] hostPort = require(a, "bridge").split(":");
    if (hostPort.length != 2) {
      throw new IllegalArgumentException("--bridge must be HOST:PORT");
    }
    BridgeEndpoint bridge = new BridgeEndpoint(hostPort[0], integer(hostPort[1], "--bridge port"),
        require(a, "cert"), require(a, "key"), require(a, "ca"),
        Duration.ofSeconds(integer(a.getOrDefault("pair-timeout", "60"), "--pair-timeout")),
        Duration.ofSeconds(integer(a.getOrDefault("idle-timeout", "60"), "--idle-timeout")));
    String out = a.get("out");
    TableFormat format = outputFormat(a.get("format"), out);
    String table = require(a, "table");
    if (a.containsKey("table-name")) {
      if (!JdbcTable.isJdbc(table)) {
        throw new IllegalArgumentException("--table-name is for a JDBC URL, not for '" + table
            + "'");
      }
      table = JdbcTable.withTable(table, a.get("table-name"));
    }
    BadRowLimit maxBadRows = BadRowLimit.parse(a.getOrDefault("max-bad-rows",
        BadRowLimit.DEFAULT_TEXT));
    return new PartyConfig(party.equals("B"), require(a, "sql"), table, out, format,
        a.get("quarantine"), maxBadRows,
        CsvOptions.of(csvChar(a.get("csv-delimiter"), ',', "--csv-delimiter"),
            csvChar(a.get("csv-quote"), '"', "--csv-quote")),
        require(a, "session"), bridge, require(a, "peer"), sha256(a.get("peer-cert-sha256")),
        integer(a.getOrDefault("bins", "0"), "--bins"),
        integer(a.getOrDefault("sigma", Integer.toString(PartyConfig.DEFAULT_SIGMA)), "--sigma"),
        a.getOrDefault("protocol", "kkrt"), a.getOrDefault("protocol-params", ""),
        integer(a.getOrDefault("parallelism", "2"), "--parallelism"),
        integer(a.getOrDefault("attempts", Integer.toString(PartyConfig.DEFAULT_ATTEMPTS)),
            "--attempts"),
        a.getOrDefault("work", System.getProperty("java.io.tmpdir") + "/psi-flink-" + party),
        publicSize(a.get("public-size")), ExpectedColumns.parse(a.get("expected-columns")),
        insecure(a.get("insecure-test-only")));
  }

  private static PublicSize publicSize(String text) {
    if (text == null) {
      return PublicSize.DEFAULT;
    }
    try {
      return PublicSize.parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--" + e.getMessage());
    }
  }

  private static boolean insecure(String value) {
    if (value == null) {
      return false;
    }
    if (!value.equals("true")) {
      throw new IllegalArgumentException(PartyConfig.INSECURE_FLAG + " takes no value");
    }
    return true;
  }

  /** A SHA-256 in hex (64 digits, as the coordinator's session records carry it), or null. */
  private static byte[] sha256(String hex) {
    if (hex == null) {
      return null;
    }
    if (!hex.matches("[0-9a-fA-F]{64}")) {
      throw new IllegalArgumentException("--peer-cert-sha256 must be 64 hex digits (a SHA-256), "
          + "not '" + hex + "'");
    }
    return java.util.HexFormat.of().parseHex(hex);
  }

  /**
   * The output format: {@code --format} if given, else the extension of {@code out} ({@code
   * /x/joined.parquet} is a directory of Parquet part files), else Avro.
   */
  public static TableFormat outputFormat(String format, String out) {
    if (format != null) {
      try {
        return TableFormat.valueOf(format.toUpperCase(java.util.Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--format must be avro, parquet or csv, not '" + format
            + "'");
      }
    }
    if (out != null) {
      String o = out.endsWith("/") ? out.substring(0, out.length() - 1) : out;
      try {
        return TableFormat.fromPath(o);
      } catch (IllegalArgumentException e) {
        return TableFormat.AVRO;
      }
    }
    return TableFormat.AVRO;
  }

  /** One character, or {@code tab} / {@code \t} for a tab (hard to pass on a command line). */
  static char csvChar(String value, char dflt, String what) {
    if (value == null) {
      return dflt;
    }
    if (value.equals("tab") || value.equals("\\t")) {
      return '\t';
    }
    if (value.length() != 1) {
      throw new IllegalArgumentException(what + " must be one character (or 'tab'), not '"
          + value + "'");
    }
    return value.charAt(0);
  }

  private static String require(Map<String, String> a, String k) {
    String v = a.get(k);
    if (v == null || v.isEmpty()) {
      throw new IllegalArgumentException("--" + k + " is required");
    }
    return v;
  }

  private static int integer(String s, String what) {
    try {
      return Integer.parseInt(s.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " must be an integer, not '" + s + "'");
    }
  }
}
