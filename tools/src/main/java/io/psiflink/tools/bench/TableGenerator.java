package io.psiflink.tools.bench;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.CommandLineSyntax;
import io.psiflink.api.OptionValues;
import io.psiflink.api.Role;
import io.psiflink.api.TableSchema;
import io.psiflink.api.TypedOption;
import io.psiflink.api.UsageException;
import io.psiflink.tools.bench.GeneratedTables.SideStats;
import io.psiflink.tools.bench.Permutations.Feistel64;
import io.psiflink.tools.bench.Permutations.SmallDomain;
import io.psiflink.tools.cli.ToolOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import org.apache.flink.types.Row;

/**
 * Generates the two parties' tables of the join benchmark as CSV files ({@link Csv} dialect, with a
 * header), streaming, in O(1) memory, deterministically from a {@link GeneratorSpec}.
 *
 * <h2>How keys are made</h2>
 *
 * Every key comes from a 64-bit <em>key index</em>: shared keys use indices {@code [0, K)}, keys
 * only in a use {@code 2^61 + j}, keys only in b use {@code 2^62 + j}. A keyed 64-bit Feistel
 * permutation P maps an index to {@code v = P(index)}, and {@code card = 4·10^15 + v / 10^5}
 * (unsigned), {@code zip = v mod 10^5} as five digits. (card, zip) determines v, so distinct
 * indices give distinct keys, and a key is shared exactly when its index is. One row in eight of
 * the non-shared keys is a <em>near miss</em> instead: the card of a shared key with a different
 * zip (offsets odd in a, even in b, so near misses never meet; the inverse of P proves the new key
 * belongs to no used index). Zip values collide freely between keys. Rows with a NULL key reuse the
 * card or zip of a shared key, so a join that ignored NULLs or compared only one column would be
 * caught.
 *
 * <p>Row order is a keyed permutation of the row positions, so NULL-key, matching, non-matching and
 * repeated rows are spread through the file. Which keys repeat, and how often, is fixed by the
 * layout (see {@link GeneratorSpec}); hence {@link #expectedJoinRows} is a closed formula.
 *
 * <h2>Other columns</h2>
 *
 * {@code id} is the 1-based row number; {@code spend} a two-decimal amount in [0, 1000); {@code
 * name}, {@code country}, {@code email_domain} come from fixed lists with non-ASCII entries and, at
 * about 1 %, values that need CSV quoting (commas, double quotes). Each non-key column is NULL in
 * about 0.5 % of rows. The empty string never occurs (Flink's csv format cannot tell it from NULL).
 */
public final class TableGenerator {

  /** Schema of party A's table {@code a}. */
  public static final TableSchema SCHEMA_A =
      new TableSchema(
          List.of(
              new Column("id", ColumnType.BIGINT, false),
              new Column("card", ColumnType.BIGINT, true),
              new Column("zip", ColumnType.STRING, true),
              new Column("spend", ColumnType.DOUBLE, true),
              new Column("name", ColumnType.STRING, true)));

  /** Schema of party B's table {@code b}. */
  public static final TableSchema SCHEMA_B =
      new TableSchema(
          List.of(
              new Column("id", ColumnType.BIGINT, false),
              new Column("card", ColumnType.BIGINT, true),
              new Column("zip", ColumnType.STRING, true),
              new Column("country", ColumnType.STRING, true),
              new Column("email_domain", ColumnType.STRING, true)));

  /** The join key columns, in both tables. */
  public static final List<String> JOIN_KEYS = List.of("card", "zip");

  /** The default benchmark query. */
  public static final String DEFAULT_QUERY =
      "SELECT a.id, a.spend, b.email_domain, b.country FROM a JOIN b "
          + "ON a.card = b.card AND a.zip = b.zip";

  public static final String FILE_A = "a.csv";
  public static final String FILE_B = "b.csv";

  /** The two tables. */
  private static final long A_BASE = 1L << 61;

  private static final long B_BASE = 1L << 62;
  private static final long CARD_BASE = 4_000_000_000_000_000L;
  private static final long ZIP_MOD = 100_000L;
  private static final int BUFFER = 1 << 20;

  private TableGenerator() {}

  // ------------------------------------------------------------------------------------------------
  // value lists

  private static final String[] FIRST = {
    "Anna", "Ben", "Clara", "David", "Emma", "Felix", "Greta", "Hugo", "Ida", "Jonas", "Karl",
        "Lena",
    "Mia", "Noah", "Olga", "Paul", "Quentin", "Rosa", "Sofia", "Tom", "Ulla", "Viktor", "Wen",
        "Yusuf",
    "José", "Zoë", "Øyvind", "Łucja", "Sören", "François", "Иван", "美咲"
  };
  private static final String[] LAST = {
    "Schmidt",
    "Meyer",
    "Weber",
    "Wagner",
    "Becker",
    "Hoffmann",
    "Koch",
    "Richter",
    "Klein",
    "Wolf",
    "Neumann",
    "Schwarz",
    "Braun",
    "Zimmermann",
    "Hartmann",
    "Lange",
    "Martin",
    "Bernard",
    "Dubois",
    "Rossi",
    "García",
    "Müller",
    "Schröder",
    "Nowak",
    "Kovačević",
    "Ødegård",
    "Öztürk",
    "Петров",
    "佐藤",
    "O'Neil",
    "van der Berg",
    "Smith"
  };
  private static final String[] NAME_ODD = {
    "Smith, John",
    "Robert \"Bob\" Jones",
    "\"Quoted\"",
    "Müller, Jürgen",
    "O'Brien, \"Mac\"",
    "a,b,\"c\"",
    "Ng, Wen \"Ada\"",
    "\"\""
  };
  private static final String[] COUNTRY = {
    "DE", "DE", "DE", "DE", "DE", "FR", "FR", "NL", "AT", "CH", "IT", "ES", "PL", "US", "GB", "SE",
    "DK", "BE", "CZ", "PT"
  };
  private static final String[] DOMAIN = {
    "gmail.com", "web.de", "gmx.de", "t-online.de", "yahoo.fr", "outlook.com", "posteo.de",
    "orange.fr", "libero.it", "bücher.de", "münchen.example", "例え.jp", "proton.me", "icloud.com",
    "mail.ru", "wp.pl"
  };
  private static final String[] DOMAIN_ODD = {
    "\"weird\".example", "comma,domain.example", "x\"y,z.example"
  };

  private static final String[] NAMES;
  private static final byte[][] NAMES_CSV;
  private static final String[] COUNTRIES = COUNTRY;
  private static final byte[][] COUNTRIES_CSV;
  private static final String[] DOMAINS;
  private static final byte[][] DOMAINS_CSV;

  /** Names at index >= NAME_PLAIN need quoting (the odd ones). */
  private static final int NAME_PLAIN = FIRST.length * LAST.length;

  private static final int DOMAIN_PLAIN = DOMAIN.length;

  static {
    List<String> names = new ArrayList<>();
    for (String l : LAST) {
      for (String f : FIRST) {
        names.add(f + " " + l);
      }
    }
    names.addAll(List.of(NAME_ODD));
    NAMES = names.toArray(String[]::new);
    NAMES_CSV = encode(NAMES);
    COUNTRIES_CSV = encode(COUNTRIES);
    List<String> domains = new ArrayList<>(List.of(DOMAIN));
    domains.addAll(List.of(DOMAIN_ODD));
    DOMAINS = domains.toArray(String[]::new);
    DOMAINS_CSV = encode(DOMAINS);
  }

  private static byte[][] encode(String[] values) {
    byte[][] out = new byte[values.length][];
    for (int i = 0; i < values.length; i++) {
      if (values[i].isEmpty()) {
        throw new AssertionError("no empty strings");
      }
      out[i] = Csv.fieldBytes(values[i]);
    }
    return out;
  }

  // ------------------------------------------------------------------------------------------------
  // layout

  /** Everything derived from the spec before any row is written. */
  static final class Plan {
    final GeneratorSpec spec;
    final long sharedRows;
    final long sharedKeys;
    final Layout a;
    final Layout b;
    final Feistel64 keyPerm;

    Plan(GeneratorSpec spec) {
      this.spec = spec;
      long nullA = Math.round(spec.nullKeyFraction() * spec.rowsA());
      long nullB = Math.round(spec.nullKeyFraction() * spec.rowsB());
      long nonNullA = spec.rowsA() - nullA;
      long nonNullB = spec.rowsB() - nullB;
      this.sharedRows = Math.round(spec.overlap() * Math.min(nonNullA, nonNullB));
      this.sharedKeys = keysFor(sharedRows, spec.duplicateFraction());
      this.keyPerm = new Feistel64(spec.seed(), 0x6b657973L /* "keys" */);
      this.a = new Layout(Role.A, spec.rowsA(), nullA, sharedRows, sharedKeys, spec, 0);
      long r = sharedKeys == 0 ? 0 : sharedRows % sharedKeys;
      this.b = new Layout(Role.B, spec.rowsB(), nullB, sharedRows, sharedKeys, spec, r / 2);
    }

    Layout layout(Role side) {
      return Role.A.equals(side) ? a : b;
    }

    /** Σ over shared keys of multiplicity in a × multiplicity in b. */
    long expectedJoinRows() {
      if (sharedKeys == 0) {
        return 0;
      }
      long q = sharedRows / sharedKeys;
      long r = sharedRows % sharedKeys;
      long h = b.sharedRotation; // a's heavy keys are [0, r), b's are [h, h + r) mod K
      long both = (r - h) + Math.max(0, h + r - sharedKeys);
      if (r == 0) {
        both = 0;
      }
      return Math.addExact(
          Math.addExact(Math.multiplyExact(sharedKeys, q * q), Math.multiplyExact(2 * q, r)), both);
    }

    /** Whether a key index is used by either table. */
    boolean usedIndex(long idx) {
      return (idx >= 0 && idx < sharedKeys)
          || (idx >= A_BASE && idx - A_BASE < a.privateKeys)
          || (idx >= B_BASE && idx - B_BASE < b.privateKeys);
    }
  }

  static long keysFor(long rows, double dup) {
    if (rows == 0) {
      return 0;
    }
    return Math.max(1, rows - Math.round(dup * rows));
  }

  /** Row slots of one table: [0, nullRows) NULL key, then shared rows, then private rows. */
  static final class Layout {
    final Role side;
    final long rows;
    final long nullRows;
    final long sharedRows;
    final long sharedKeys;
    final long privateRows;
    final long privateKeys;
    final long sharedRotation;
    final SmallDomain order;

    Layout(
        Role side,
        long rows,
        long nullRows,
        long sharedRows,
        long sharedKeys,
        GeneratorSpec spec,
        long sharedRotation) {
      this.side = side;
      this.rows = rows;
      this.nullRows = nullRows;
      this.sharedRows = sharedRows;
      this.sharedKeys = sharedKeys;
      this.privateRows = rows - nullRows - sharedRows;
      this.privateKeys = keysFor(privateRows, spec.duplicateFraction());
      this.sharedRotation = sharedRotation;
      this.order =
          new SmallDomain(rows, spec.seed(), Role.A.equals(side) ? 0x6f72645fL : 0x6f72645eL);
    }

    long distinctKeys() {
      return sharedKeys + privateKeys;
    }
  }

  /**
   * Key number of slot u when R slots are spread over K keys, the r = R mod K heavier keys (one
   * repeat more) first: key k has ⌊R/K⌋ + [k < r] slots.
   */
  static long keyOfSlot(long u, long slots, long keys) {
    long q = slots / keys;
    long r = slots % keys;
    long heavySlots = r * (q + 1);
    return u < heavySlots ? u / (q + 1) : r + (u - heavySlots) / q;
  }

  // ------------------------------------------------------------------------------------------------
  // rows

  /** Receives one generated row as primitive values. */
  interface RowSink {
    /**
     * @param card ignored when cardNull
     * @param zip -1 = NULL
     * @param c3 A: spend in cents; B: country index; -1 = NULL
     * @param c4 A: name index; B: email domain index; -1 = NULL
     */
    void row(long id, boolean cardNull, long card, long zip, long c3, int c4) throws IOException;
  }

  private static final class Counts {
    long nullKeyRows;
    long matchingRows;
    long nearMissRows;
  }

  private static long nextRandom(long[] state) {
    state[0] += 0x9e3779b97f4a7c15L;
    return Permutations.mix64(state[0]);
  }

  private static void generate(Plan plan, Role side, RowSink sink, Counts counts)
      throws IOException {
    Layout lay = plan.layout(side);
    Feistel64 perm = plan.keyPerm;
    long seed = plan.spec.seed();
    long sideSalt = Role.A.equals(side) ? 0x5a5a5a5a11111111L : 0x5a5a5a5a22222222L;
    long[] rnd = new long[1];
    long privateBase = Role.A.equals(side) ? A_BASE : B_BASE;
    long oddOrEven = Role.A.equals(side) ? 1 : 2;
    long rowSalt = Permutations.mix64(seed ^ sideSalt);
    for (long p = 0; p < lay.rows; p++) {
      rnd[0] = rowSalt ^ Permutations.mix64(p * 0xd1342543de82ef95L + 7);
      long s = lay.order.apply(p);
      boolean cardNull = false;
      long card = 0;
      long zip;
      if (s < lay.nullRows) {
        counts.nullKeyRows++;
        long r = nextRandom(rnd);
        long v = plan.sharedKeys > 0 ? perm.apply((r >>> 2) % plan.sharedKeys) : nextRandom(rnd);
        switch ((int) ((r & 0xff) % 3)) {
          case 0 -> {
            cardNull = true;
            zip = zipPart(v);
          }
          case 1 -> {
            card = CARD_BASE + cardPart(v);
            zip = -1;
          }
          default -> {
            cardNull = true;
            zip = -1;
          }
        }
      } else {
        long v;
        long u = s - lay.nullRows;
        if (u < lay.sharedRows) {
          counts.matchingRows++;
          long k = keyOfSlot(u, lay.sharedRows, lay.sharedKeys);
          k = (k + lay.sharedRotation) % lay.sharedKeys;
          v = perm.apply(k);
        } else {
          long j = keyOfSlot(u - lay.sharedRows, lay.privateRows, lay.privateKeys);
          long nm = nearMiss(plan, j, oddOrEven);
          if (nm != 0) {
            counts.nearMissRows++;
            v = nm;
          } else {
            v = perm.apply(privateBase + j);
          }
        }
        card = CARD_BASE + cardPart(v);
        zip = zipPart(v);
      }
      long c3;
      int c4;
      long r1 = nextRandom(rnd);
      long r2 = nextRandom(rnd);
      if (Role.A.equals(side)) {
        c3 = (r1 & 0x3ff) < 5 ? -1 : (r1 >>> 10) % 100_000L;
        c4 = pick(r2, NAME_PLAIN, NAMES.length);
      } else {
        c3 = (r1 & 0x3ff) < 5 ? -1 : (r1 >>> 10) % COUNTRIES.length;
        c4 = pick(r2, DOMAIN_PLAIN, DOMAINS.length);
      }
      sink.row(p + 1, cardNull, card, zip, c3, c4);
    }
  }

  /** -1 (NULL) at 5/1024, an odd value at 12/1024, else a plain one. */
  private static int pick(long r, int plain, int all) {
    int t = (int) (r & 0x3ff);
    if (t < 5) {
      return -1;
    }
    long x = r >>> 10;
    if (t < 17) {
      return plain + (int) (x % (all - plain));
    }
    return (int) (x % plain);
  }

  /**
   * v / 10^5 with v unsigned: exact because 10^5 is even ((2a+b) / 2c = a / c for b in {0, 1}); JDK
   * 17's Long.divideUnsigned goes through BigInteger for half of all values.
   */
  static long cardPart(long v) {
    return (v >>> 1) / (ZIP_MOD / 2);
  }

  /** v mod 10^5 with v unsigned. */
  static long zipPart(long v) {
    return v - cardPart(v) * ZIP_MOD;
  }

  /** The near-miss key value for private key j, or 0 if j is not a near miss. */
  private static long nearMiss(Plan plan, long j, long oddOrEven) {
    if ((j & 7) != 3 || plan.sharedKeys == 0) {
      return 0;
    }
    long t = j >>> 3;
    long i = t % plan.sharedKeys;
    long off = 2 * (t / plan.sharedKeys) + oddOrEven;
    if (off >= ZIP_MOD) {
      return 0;
    }
    long vi = plan.keyPerm.apply(i);
    long base = cardPart(vi) * ZIP_MOD;
    long z = (zipPart(vi) + off) % ZIP_MOD;
    long v = base + z;
    if (Long.compareUnsigned(v, base) < 0 || v == 0) {
      return 0; // wrapped past 2^64 (or the marker value): no near miss here
    }
    if (plan.usedIndex(plan.keyPerm.invert(v))) {
      return 0; // would be some used key: not by construction a non-match
    }
    return v;
  }

  // ------------------------------------------------------------------------------------------------
  // public API

  /** Rows of {@link #DEFAULT_QUERY} for this spec, by construction (no join is run). */
  public static long expectedJoinRows(GeneratorSpec spec) {
    return new Plan(spec).expectedJoinRows();
  }

  /** Writes one table as CSV (header first) to {@code out}, which is closed. */
  public static SideStats write(GeneratorSpec spec, Role side, OutputStream out)
      throws IOException {
    return write(new Plan(spec), side, out);
  }

  private static SideStats write(Plan plan, Role side, OutputStream out) throws IOException {
    Counts counts = new Counts();
    TableSchema schema = Role.A.equals(side) ? SCHEMA_A : SCHEMA_B;
    byte[][] c4csv = Role.A.equals(side) ? NAMES_CSV : DOMAINS_CSV;
    long bytes;
    try (CsvByteWriter w = new CsvByteWriter(out, BUFFER)) {
      for (String name : schema.names()) {
        w.raw(Csv.fieldBytes(name));
      }
      w.endRecord();
      boolean isA = Role.A.equals(side);
      generate(
          plan,
          side,
          (id, cardNull, card, zip, c3, c4) -> {
            w.longField(id);
            if (cardNull) {
              w.nullField();
            } else {
              w.longField(card);
            }
            if (zip < 0) {
              w.nullField();
            } else {
              w.paddedField(zip, 5);
            }
            if (c3 < 0) {
              w.nullField();
            } else if (isA) {
              w.centsField(c3);
            } else {
              w.raw(COUNTRIES_CSV[(int) c3]);
            }
            if (c4 < 0) {
              w.nullField();
            } else {
              w.raw(c4csv[c4]);
            }
            w.endRecord();
          },
          counts);
      w.flush();
      bytes = w.bytesWritten();
    }
    return stats(plan, side, counts, bytes);
  }

  private static SideStats stats(Plan plan, Role side, Counts counts, long bytes) {
    Layout lay = plan.layout(side);
    if (counts.nullKeyRows != lay.nullRows || counts.matchingRows != lay.sharedRows) {
      throw new AssertionError("layout and rows disagree");
    }
    long nonNull = lay.rows - lay.nullRows;
    return new SideStats(
        lay.rows,
        lay.nullRows,
        lay.sharedRows,
        lay.sharedKeys,
        lay.distinctKeys(),
        nonNull - lay.distinctKeys(),
        counts.nearMissRows,
        bytes);
  }

  /**
   * Calls {@code consumer} with every row of one table, typed as {@link #SCHEMA_A} / {@link
   * #SCHEMA_B} (Long, String, Double; NULL as null), in file order — the same values the CSV holds.
   * The Row instance is fresh for every call.
   */
  public static void forEachRow(GeneratorSpec spec, Role side, Consumer<Row> consumer) {
    Plan plan = new Plan(spec);
    boolean isA = Role.A.equals(side);
    try {
      generate(
          plan,
          side,
          (id, cardNull, card, zip, c3, c4) -> {
            Object v3;
            Object v4;
            if (isA) {
              v3 = c3 < 0 ? null : c3 / 100.0;
              v4 = c4 < 0 ? null : NAMES[c4];
            } else {
              v3 = c3 < 0 ? null : COUNTRIES[(int) c3];
              v4 = c4 < 0 ? null : DOMAINS[c4];
            }
            consumer.accept(
                Row.of(
                    id,
                    cardNull ? null : card,
                    zip < 0 ? null : String.format(Locale.ROOT, "%05d", zip),
                    v3,
                    v4));
          },
          new Counts());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Writes {@code dir/a.csv} and {@code dir/b.csv} (the two in parallel) and returns what is known
   * about them.
   */
  public static GeneratedTables generate(GeneratorSpec spec, Path dir) throws IOException {
    Files.createDirectories(dir);
    Plan plan = new Plan(spec);
    Path a = dir.resolve(FILE_A);
    Path b = dir.resolve(FILE_B);
    long t0 = System.nanoTime();
    CompletableFuture<SideStats> fb =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return write(plan, Role.B, Files.newOutputStream(b));
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    SideStats sa = write(plan, Role.A, Files.newOutputStream(a));
    SideStats sb;
    try {
      sb = fb.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof UncheckedIOException u) {
        throw u.getCause();
      }
      throw e;
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    return new GeneratedTables(a, b, plan.expectedJoinRows(), spec, sa, sb, seconds);
  }

  // ------------------------------------------------------------------------------------------------

  // the table generator's command line
  static final TypedOption<Long> ROWS =
      ToolOptions.count("rows", "N", "table a's rows (1000000, 1_000_000 or 1e6)", null, 0)
          .asRequired();
  static final TypedOption<Long> ROWS_B =
      ToolOptions.count("rows-b", "N", "table b's rows (default: --rows)", null, 0);
  static final TypedOption<Double> OVERLAP =
      ToolOptions.fraction(
          "overlap",
          "F",
          "the fraction of the smaller table's keys that the other table has too",
          0.5,
          true);
  static final TypedOption<Double> DUP =
      ToolOptions.fraction(
          "dup", "F", "the fraction of rows that repeat another row's key, in [0, 1)", 0.0, true);
  static final TypedOption<Double> NULLS =
      ToolOptions.fraction("nulls", "F", "the fraction of rows with a NULL key", 0.0, true);
  static final TypedOption<Long> SEED =
      ToolOptions.anyLong("seed", "S", "the generator's seed", GeneratorSpec.DEFAULT_SEED);
  static final TypedOption<Path> OUT =
      TypedOption.path("out", "DIR", "where a.csv and b.csv are written").asRequired();

  /** The command line of the table generator's main. */
  static final CommandLineSyntax SYNTAX =
      new CommandLineSyntax(
          "TableGenerator",
          "Writes DIR/a.csv and DIR/b.csv and prints a JSON summary (with expectedJoinRows) on "
              + "stdout.",
          List.of(ROWS, ROWS_B, OVERLAP, DUP, NULLS, SEED, OUT));

  /** What a command line asks for: the tables and where they go. */
  record Command(GeneratorSpec spec, Path out) {
    /**
     * Reads a parsed command line.
     *
     * @throws UsageException when the values do not make tables (e.g. {@code --dup 1})
     */
    static Command of(OptionValues o) {
      long rows = o.get(ROWS);
      try {
        return new Command(
            new GeneratorSpec(
                rows,
                o.has(ROWS_B) ? o.get(ROWS_B) : rows,
                o.get(OVERLAP),
                o.get(DUP),
                o.get(NULLS),
                o.get(SEED)),
            o.get(OUT));
      } catch (IllegalArgumentException e) {
        throw new UsageException(e.getMessage());
      }
    }
  }

  /** See {@link #SYNTAX}; {@code --help} lists the options. */
  public static void main(String[] args) throws IOException {
    int code = run(args, System.out, System.err);
    if (code != 0) {
      System.exit(code);
    }
  }

  /**
   * Parses {@code args} and writes the tables.
   *
   * @return the exit code: 0 written (or the help printed), 2 a wrong command line (one line on
   *     {@code err} naming the option)
   */
  static int run(String[] args, PrintStream out, PrintStream err) throws IOException {
    ToolOptions.Parsed parsed = ToolOptions.parse(SYNTAX, "TableGenerator", args, out, err);
    if (parsed.done()) {
      return parsed.exitCode();
    }
    Command c;
    try {
      c = Command.of(parsed.values());
    } catch (UsageException e) {
      err.println("TableGenerator: " + e.getMessage() + " (--help lists the options)");
      return 2;
    }
    out.println(generate(c.spec(), c.out()).toJson());
    return 0;
  }
}
