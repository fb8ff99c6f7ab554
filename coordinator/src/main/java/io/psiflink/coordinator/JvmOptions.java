package io.psiflink.coordinator;

import io.psiflink.connectors.JdbcTable;
import io.psiflink.connectors.TableFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * JVM options of the JVMs that run Flink jobs: the garbage collector, and what Flink needs on Java
 * 17 (the same opens Flink's own scripts pass). They live in the resource {@code
 * flink-jvm-options}, which {@code ./psi} reads too. {@link #forTables} adds the JIT's setting,
 * which depends on how much the JVM will read.
 */
public final class JvmOptions {
  public static final List<String> FLINK_JVM = load();

  /**
   * System properties of a party JVM named {@code psi.flink.<key>} set Flink's {@code <key>} in the
   * job's configuration. The job (PrivateJoinJob.FLINK_PROPERTY_PREFIX) reads them; it-tests check
   * that both spell the prefix alike.
   */
  public static final String FLINK_PROPERTY_PREFIX = "psi.flink.";

  /**
   * The system property naming the class path of an embedded party JVM when the configuration's
   * {@code job.classpath} does not (./psi serve and ./psi demo set it to the job's build).
   */
  public static final String JOB_CLASSPATH_PROPERTY = "psi.job.classpath";

  /**
   * Tables up to this many bytes are joined by a JVM with the client compiler (C1) only. A small
   * join is over before C2's compilations pay for themselves: on the 2-core machine C2 took half of
   * the CPU of a 10^5-row demo (three JVMs; 44 s, with C1 only 29 s) and a 10^6-row join took 37 s
   * against 24 s with C1 only; at 10^7 rows (420-490 MB a table) both took the same time, and at
   * 10^8 C1 alone was 1.8x slower (docs/benchmarks.md, "the JIT and the exit").
   */
  public static final long C1_ONLY_MAX_BYTES = 256L << 20;

  /** The option that stops HotSpot's tiered compilation at C1. */
  public static final String C1_ONLY = "-XX:TieredStopAtLevel=1";

  /**
   * HotSpot's thresholds for compiling a method with C2 (Tier4*), thirty times their defaults, for
   * JVMs of larger tables: C2 then compiles what runs per row (which reaches them within the first
   * rows of such a table) and leaves to C1 the code that runs per batch, per bin or once, whose C2
   * compilations took about a fifth of each party's CPU at 10^7 rows. At 10^7 rows a private join
   * took 0.90x as long with ten times the defaults and 0.94x that again with thirty; a hundred
   * times was slower (docs/benchmarks.md, issue 19's eleventh step).
   */
  public static final List<String> C2_LATE =
      List.of(
          "-XX:Tier4InvocationThreshold=150000",
          "-XX:Tier4MinInvocationThreshold=18000",
          "-XX:Tier4CompileThreshold=450000",
          "-XX:Tier4BackEdgeThreshold=1200000");

  private static final long YOUNG_CAP_MIB = 512;

  /**
   * The young generation's largest size. The parallel collector grows it towards a third of the
   * heap (2 GiB of a 6 GiB party), and each of its pages costs a page fault and the kernel's
   * zeroing the first time it is touched: at 10^7 rows that was 40 % of the run's system CPU and
   * half of each party's peak RSS (2.7 against 1.3 GiB), and the larger young generation saved
   * nothing (docs/benchmarks.md, issue 19's eighth step).
   */
  public static final String YOUNG_CAP = "-XX:MaxNewSize=" + YOUNG_CAP_MIB + "m";

  private JvmOptions() {}

  /**
   * {@link #FLINK_JVM} for a JVM that reads {@code tables} (paths or JDBC URLs), with the JIT's
   * setting: {@link #C1_ONLY} when the files of each are at most {@link #C1_ONLY_MAX_BYTES}, else
   * {@link #C2_LATE} (so the insecure baseline, which reads both parties' tables, runs as the
   * parties' JVMs do). A table whose size is unknown (a database, a path that cannot be listed
   * here) counts as large.
   */
  public static List<String> forTables(List<String> tables) {
    List<String> jit = List.of(C1_ONLY);
    for (String table : tables) {
      long bytes = fileBytes(table);
      if (bytes < 0 || bytes > C1_ONLY_MAX_BYTES) {
        jit = C2_LATE; // the other tables' sizes no longer matter: none is listed
        break;
      }
    }
    List<String> options = new ArrayList<>(FLINK_JVM);
    options.addAll(jit);
    return List.copyOf(options);
  }

  /**
   * The heap options of a JVM that runs Flink jobs: {@code -Xmx<size>}, and {@link #YOUNG_CAP}
   * where it binds (a heap of more than three times the cap; below that the collector's own limit
   * is lower, and the JVM warns about a cap as large as the heap).
   *
   * @param size a Java heap size: a number, optionally followed by k, m or g
   */
  public static List<String> heap(String size) {
    long bytes = heapBytes(size);
    return bytes > 3 * (YOUNG_CAP_MIB << 20)
        ? List.of("-Xmx" + size, YOUNG_CAP)
        : List.of("-Xmx" + size);
  }

  /** The bytes of a heap size as -Xmx takes it, or -1 if it is not one (the JVM says why). */
  static long heapBytes(String size) {
    if (size == null || !size.matches("[0-9]{1,12}[kKmMgG]?")) {
      return -1;
    }
    char unit = Character.toLowerCase(size.charAt(size.length() - 1));
    int shift = unit == 'k' ? 10 : unit == 'm' ? 20 : unit == 'g' ? 30 : 0;
    long n = Long.parseLong(shift == 0 ? size : size.substring(0, size.length() - 1));
    return n > Long.MAX_VALUE >> shift ? -1 : n << shift;
  }

  /** The byte length of a table's files, or -1 when it is unknown. */
  private static long fileBytes(String table) {
    if (table == null || JdbcTable.isJdbc(table)) {
      return -1;
    }
    try {
      return TableFiles.of(table).bytes();
    } catch (Exception e) {
      // the job itself reports a table it cannot read; here only the JIT's setting depends on it
      return -1;
    }
  }

  private static List<String> load() {
    try (InputStream in = JvmOptions.class.getResourceAsStream("flink-jvm-options")) {
      if (in == null) {
        throw new IllegalStateException("resource flink-jvm-options missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .lines()
          .map(String::trim)
          .filter(l -> !l.isEmpty() && !l.startsWith("#"))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
