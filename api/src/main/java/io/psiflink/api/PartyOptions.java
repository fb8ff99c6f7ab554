package io.psiflink.api;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * The options of one party's job ({@code io.psiflink.jobs.PartyMain}), each declared once here with
 * its type, description and default. The job parses them, and every writer of a job command line
 * prints them, through {@link PartyConfiguration}: the coordinator's launcher, {@code ./psi local},
 * {@code deploy/local-cluster/party-args.sh} and the Kubernetes job manifest (a test checks each).
 */
public final class PartyOptions {
  private PartyOptions() {}

  public static final TypedOption<Role> PARTY =
      new TypedOption<>(
          "party",
          Role.class,
          "A|B|Pi",
          "the party this job plays: A (table a; receives the PSI and writes the joined table) or B;"
              + " in an n-party join (--parties) P1..Pn, the i-th table of the query (P1 writes the"
              + " joined table)",
          null,
          true,
          PartyOptions::role,
          Role::label);

  public static final TypedOption<String> TABLE =
      TypedOption.text(
              "table",
              "PATH|JDBC_URL",
              "this party's table: a .csv, .avro or .parquet file or a directory of part files, local or "
                  + "hdfs://, or jdbc:postgresql://host:port/db?table=T (the password comes from the "
                  + "environment, never the command line)",
              null)
          .asRequired();

  public static final TypedOption<String> TABLE_NAME =
      TypedOption.text("table-name", "T", "the table of a JDBC URL given without ?table=", null);

  public static final TypedOption<String> SQL =
      TypedOption.text("sql", "SQL", "the join: SELECT ... FROM a JOIN b ON ... [WHERE ...]", null)
          .asRequired();

  public static final TypedOption<String> OUT =
      TypedOption.text(
          "out",
          "DIR",
          "where party A writes the joined table (it appears only when the job succeeded); party A "
              + "only",
          null);

  public static final TypedOption<OutputFormat> FORMAT =
      new TypedOption<>(
          "format",
          OutputFormat.class,
          "avro|parquet|csv",
          "the joined table's format (default: from the extension of --out, else avro)",
          null,
          false,
          OutputFormat::parse,
          OutputFormat::text);

  public static final TypedOption<String> QUARANTINE =
      TypedOption.text(
          "quarantine",
          "DIR",
          "where rows that cannot be read or have a NULL key go (default: only counted)",
          null);

  public static final TypedOption<String> MAX_BAD_ROWS =
      TypedOption.text(
          "max-bad-rows",
          "N|P%",
          "how many quarantined rows fail the job: a count or a percentage of the rows read",
          "1%");

  public static final TypedOption<Character> CSV_DELIMITER =
      csvChar("csv-delimiter", "the field delimiter of a CSV table", ',');

  public static final TypedOption<Character> CSV_QUOTE =
      csvChar("csv-quote", "the quote character of a CSV table", '"');

  public static final TypedOption<String> SESSION =
      TypedOption.text("session", "ID", "the session id both jobs of the join share", null)
          .asRequired();

  public static final TypedOption<HostPort> BRIDGE =
      new TypedOption<>(
          "bridge",
          HostPort.class,
          "HOST:PORT",
          "the bridge relay both jobs dial (party A's)",
          null,
          true,
          HostPort::parse,
          HostPort::toString);

  public static final TypedOption<Path> CERT =
      TypedOption.path("cert", "PEM", "this party's bridge certificate chain").asRequired();

  public static final TypedOption<Path> KEY =
      TypedOption.path("key", "PEM", "the private key of --cert").asRequired();

  public static final TypedOption<Path> CA =
      TypedOption.path(
              "ca", "PEM", "the CAs this party trusts for the relay's and the peer's certificates")
          .asRequired();

  public static final TypedOption<String> PEER =
      TypedOption.text(
          "peer",
          "NAME",
          "the peer's party name, as in its certificate; required in a two-party join",
          null);

  public static final TypedOption<String> PEER_CERT_SHA256 =
      new TypedOption<>(
          "peer-cert-sha256",
          String.class,
          "HEX",
          "the SHA-256 of the peer's certificate, as the session names it; "
              + "required unless --insecure-test-only",
          null,
          false,
          PartyOptions::sha256Hex,
          s -> s);

  public static final TypedOption<Integer> BINS =
      TypedOption.integer(
          "bins", "M", "the bin count m; 0 chooses it from the sizes and the parallelism", 0, 0);

  public static final TypedOption<Integer> SIGMA =
      TypedOption.integer(
          "sigma",
          "S",
          "the statistical security parameter σ of the padding bound; >= 40 unless "
              + "--insecure-test-only",
          40,
          1);

  public static final TypedOption<String> PROTOCOL =
      TypedOption.text("protocol", "P", "the native PSI protocol", "rr22");

  public static final TypedOption<String> PROTOCOL_PARAMS =
      new TypedOption<>(
          "protocol-params",
          String.class,
          "K=V,...",
          "extra parameters of the protocol",
          "",
          false,
          s -> s,
          s -> s);

  public static final TypedOption<JoinMode> MODE =
      new TypedOption<>(
          "mode",
          JoinMode.class,
          "both|labeled",
          "who learns the intersection: both parties, or only A (labeled: B sends every key's rows "
              + "encrypted so that only a match opens them, and learns nothing)",
          JoinMode.BOTH,
          false,
          JoinMode::parse,
          JoinMode::text);

  /** Default of {@link #LABEL_BYTES}. */
  public static final int DEFAULT_LABEL_BYTES = 128;

  /** The least and the largest {@link #LABEL_BYTES} (the native library's PSI_MAX_LABEL_BYTES). */
  public static final int LABEL_BYTES_MIN = 8;

  public static final int LABEL_BYTES_MAX = 1 << 20;

  public static final TypedOption<Integer> LABEL_BYTES =
      TypedOption.integer(
          "label-bytes",
          "N",
          "labeled mode: the public size every key's rows from B are padded to (row count and "
              + "encoded rows); a key whose rows do not fit fails the join, naming this option",
          DEFAULT_LABEL_BYTES,
          LABEL_BYTES_MIN);

  public static final TypedOption<Prefilter> PREFILTER =
      new TypedOption<>(
          "prefilter",
          Prefilter.class,
          "none|helper|auto",
          "helper: a third organisation (--helper) deals the correlations with which both parties "
              + "AND their Bloom filters of their tokens, and the PSI runs only on the candidates (same output; the extra "
              + "leakage is in docs/security.md); auto: the helper when the cost model expects it "
              + "to save time (both sizes and --expected-overlap)",
          Prefilter.NONE,
          false,
          Prefilter::parse,
          Prefilter::text);

  /** The least and the largest {@link #FILTER_BITS}: filters of 2^16 to 2^36 bits. */
  public static final int FILTER_BITS_MIN = 16;

  public static final int FILTER_BITS_MAX = 36;

  public static final TypedOption<Integer> FILTER_BITS =
      TypedOption.integer(
          "filter-bits",
          "L",
          "prefilter: the Bloom filter has 2^L bits ("
              + FILTER_BITS_MIN
              + " to "
              + FILTER_BITS_MAX
              + "); 0 chooses L from both parties' sizes",
          0,
          0);

  /**
   * The share of the smaller table's keys the query expects the other table to hold too: what
   * {@code --prefilter auto} assumes. 1 (the default) assumes the worst case for the filter.
   */
  public static final TypedOption<Double> EXPECTED_OVERLAP =
      new TypedOption<>(
          "expected-overlap",
          Double.class,
          "F",
          "prefilter auto: the share (0 to 1) of the smaller table's keys expected in the "
              + "intersection; 1, the default, assumes all",
          1.0,
          false,
          PartyOptions::parseShare,
          String::valueOf);

  /** A share in [0, 1], as decimal text. */
  static double parseShare(String text) {
    double v;
    try {
      v = Double.parseDouble(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("must be a number from 0 to 1, not '" + text + "'");
    }
    if (!(v >= 0 && v <= 1)) {
      throw new IllegalArgumentException("must lie in [0, 1], not " + text.trim());
    }
    return v;
  }

  /** The largest {@link #FILTER_HASHES}. */
  public static final int FILTER_HASHES_MAX = 16;

  public static final TypedOption<Integer> FILTER_HASHES =
      TypedOption.integer(
          "filter-hashes",
          "K",
          "prefilter: hash functions per key (1 to "
              + FILTER_HASHES_MAX
              + "); 0 chooses k from the filter's size and both parties' sizes",
          0,
          0);

  public static final TypedOption<String> HELPER =
      TypedOption.text(
          "helper",
          "NAME",
          "prefilter: the helper's party name, as in its certificate (it must chain to --ca)",
          null);

  public static final TypedOption<String> HELPER_CERT_SHA256 =
      new TypedOption<>(
          "helper-cert-sha256",
          String.class,
          "HEX",
          "prefilter: the SHA-256 of the helper's certificate, as the session names it; required "
              + "with --prefilter helper unless --insecure-test-only",
          null,
          false,
          PartyOptions::sha256Hex,
          s -> s);

  public static final TypedOption<List<String>> PARTIES =
      listOption(
          "parties",
          "NAME,...",
          "n-party join: every party's name, as in its certificate, in the order of the query's"
              + " tables (the first writes the joined table); not with --peer",
          s -> s);

  public static final TypedOption<List<String>> PARTY_CERT_SHA256S =
      listOption(
          "party-cert-sha256s",
          "HEX,...",
          "n-party join: per party of --parties the SHA-256 of its certificate as the session"
              + " names it ('-' for this party's own); required unless --insecure-test-only",
          s -> s.equals("-") ? s : sha256Hex(s));

  public static final TypedOption<String> PROVIDER =
      TypedOption.text(
          "provider",
          "NAME",
          "n-party join: the outsourcing provider's party name, as in its certificate (it must"
              + " chain to --ca)",
          null);

  public static final TypedOption<String> PROVIDER_CERT_SHA256 =
      new TypedOption<>(
          "provider-cert-sha256",
          String.class,
          "HEX",
          "n-party join: the SHA-256 of the provider's certificate; required unless"
              + " --insecure-test-only",
          null,
          false,
          PartyOptions::sha256Hex,
          s -> s);

  public static final TypedOption<Integer> PARALLELISM =
      TypedOption.integer(
          "parallelism",
          "P",
          "the Flink parallelism of the job (and bins processed at once)",
          2,
          1);

  public static final TypedOption<Integer> ATTEMPTS =
      TypedOption.integer("attempts", "N", "attempts per bin before the job fails", 3, 1);

  public static final TypedOption<String> WORK =
      TypedOption.text(
          "work",
          "DIR",
          "local directory for spill files (default: $TMPDIR/psi-flink-<party>)",
          null);

  public static final TypedOption<Duration> PAIR_TIMEOUT =
      seconds(
          "pair-timeout", "how long a bin waits for the peer's operator to pair on the bridge", 60);

  public static final TypedOption<Duration> IDLE_TIMEOUT =
      seconds("idle-timeout", "how long a paired bin stream may stay silent", 60);

  public static final TypedOption<Path> SUMMARY =
      TypedOption.path("summary", "FILE", "write the job's summary (JSON) here when it succeeded");

  public static final TypedOption<PublicSize> PUBLIC_SIZE =
      new TypedOption<>(
          "public-size",
          PublicSize.class,
          "rounded|exact|declared:N",
          "what the peer learns of this party's size",
          PublicSize.ROUNDED,
          false,
          PublicSize::parse,
          PublicSize::text);

  public static final TypedOption<String> EXPECTED_COLUMNS =
      TypedOption.text(
          "expected-columns",
          "NAME:TYPE,...",
          "the registered columns (URL-encoded names): the job refuses a table whose "
              + "columns differ",
          null);

  public static final TypedOption<Boolean> RESUME =
      TypedOption.flag(
          "resume",
          "resume the failed run of --session whose state is in --work: bins party A committed"
              + " are not redone, the rest run with fresh randomness");

  public static final TypedOption<Boolean> NO_RESUME =
      TypedOption.flag(
          "no-resume",
          "keep no resume state or journal: the session's token key never reaches the disk, and a"
              + " failed run is run again instead of resumed");

  public static final TypedOption<Boolean> INSECURE_TEST_ONLY =
      TypedOption.flag(
          "insecure-test-only", "accept σ < 40 and no --peer-cert-sha256: for tests only");

  /** Every option of the job, in the order a printed command line has them. */
  public static final List<TypedOption<?>> ALL =
      List.of(
          PARTY,
          TABLE,
          TABLE_NAME,
          SQL,
          OUT,
          FORMAT,
          QUARANTINE,
          MAX_BAD_ROWS,
          CSV_DELIMITER,
          CSV_QUOTE,
          SESSION,
          BRIDGE,
          CERT,
          KEY,
          CA,
          PEER,
          PEER_CERT_SHA256,
          BINS,
          SIGMA,
          PROTOCOL,
          PROTOCOL_PARAMS,
          MODE,
          LABEL_BYTES,
          PREFILTER,
          FILTER_BITS,
          FILTER_HASHES,
          EXPECTED_OVERLAP,
          HELPER,
          HELPER_CERT_SHA256,
          PARTIES,
          PARTY_CERT_SHA256S,
          PROVIDER,
          PROVIDER_CERT_SHA256,
          PARALLELISM,
          ATTEMPTS,
          WORK,
          PAIR_TIMEOUT,
          IDLE_TIMEOUT,
          SUMMARY,
          PUBLIC_SIZE,
          EXPECTED_COLUMNS,
          RESUME,
          NO_RESUME,
          INSECURE_TEST_ONLY);

  /** The job's command line. */
  public static final CommandLineSyntax SYNTAX =
      new CommandLineSyntax(
          "PartyMain",
          "Runs one party's private join job (on an embedded Flink MiniCluster, or inside flink run).",
          ALL);

  /** One character, or {@code tab} / {@code \t} for a tab (hard to pass on a command line). */
  private static TypedOption<Character> csvChar(String name, String description, char dflt) {
    return new TypedOption<>(
        name,
        Character.class,
        "C",
        description + " (or 'tab')",
        dflt,
        false,
        s -> {
          if (s.equals("tab") || s.equals("\\t")) {
            return '\t';
          }
          if (s.length() != 1) {
            throw new IllegalArgumentException("must be one character (or 'tab'), not '" + s + "'");
          }
          return s.charAt(0);
        },
        c -> c == '\t' ? "tab" : String.valueOf(c));
  }

  private static TypedOption<Duration> seconds(String name, String description, int dflt) {
    return new TypedOption<>(
        name,
        Duration.class,
        "SECONDS",
        description,
        Duration.ofSeconds(dflt),
        false,
        s -> {
          long v;
          try {
            v = Long.parseLong(s.trim());
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be an integer (seconds), not '" + s + "'");
          }
          if (v < 1) {
            throw new IllegalArgumentException("must be at least 1 second, not " + v);
          }
          return Duration.ofSeconds(v);
        },
        d -> Long.toString(d.toSeconds()));
  }

  /**
   * A party's label: A or B, or Pi of an n-party join, read as party i of {@link #MAX_PARTIES}
   * until the job counts its {@link #PARTIES}.
   */
  private static Role role(String text) {
    String t = text.trim();
    if (t.length() > 1 && (t.charAt(0) == 'P' || t.charAt(0) == 'p')) {
      return Role.parse(t, MAX_PARTIES);
    }
    return Role.twoParty(t);
  }

  /** The most parties of an n-party join. */
  public static final int MAX_PARTIES = 64;

  /** A comma-separated list, each item read by {@code item}. */
  private static TypedOption<List<String>> listOption(
      String name,
      String label,
      String description,
      java.util.function.UnaryOperator<String> item) {
    @SuppressWarnings("unchecked")
    Class<List<String>> type = (Class<List<String>>) (Class<?>) List.class;
    return new TypedOption<>(
        name,
        type,
        label,
        description,
        null,
        false,
        s -> {
          List<String> items = new java.util.ArrayList<>();
          for (String part : s.split(",", -1)) {
            String p = part.trim();
            if (p.isEmpty()) {
              throw new IllegalArgumentException("has an empty item: '" + s + "'");
            }
            items.add(item.apply(p));
          }
          return List.copyOf(items);
        },
        l -> String.join(",", l));
  }

  /** A SHA-256 in hex (64 digits, as the coordinator's session records carry it), lower case. */
  private static String sha256Hex(String hex) {
    if (!hex.matches("[0-9a-fA-F]{64}")) {
      throw new IllegalArgumentException("must be 64 hex digits (a SHA-256), not '" + hex + "'");
    }
    return HexFormat.of().formatHex(HexFormat.of().parseHex(hex)).toLowerCase(Locale.ROOT);
  }
}
