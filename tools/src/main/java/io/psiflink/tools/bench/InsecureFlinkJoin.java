package io.psiflink.tools.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.CommandLineSyntax;
import io.psiflink.api.OptionValues;
import io.psiflink.api.TableSchema;
import io.psiflink.api.TypedOption;
import io.psiflink.connectors.TableFormat;
import io.psiflink.connectors.TableSink;
import io.psiflink.tools.cli.ToolOptions;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.types.Row;

/**
 * The insecure baseline of the join benchmark, and its big-data oracle: the same SQL run by plain
 * Flink SQL in one BATCH job on an embedded MiniCluster, with both tables in the clear.
 *
 * <p>Tables {@code a} and {@code b} are registered as filesystem tables in Flink's csv format.
 * Flink 2.3's csv format has no option to skip a header line, and it reads a file with a single
 * reader, so before the job each CSV file is copied, without its header, into {@code parallelism}
 * part files cut at record boundaries (phase {@code prepare}, not part of {@link Result#seconds}).
 * The header is checked against the schema. The SQL is executed unchanged; the result is digested
 * ({@link RowDigests}) and, if asked, written as Avro part files by the private join's own writer
 * ({@link TableSink}), so that the benchmark compares two jobs that both write their result.
 */
public final class InsecureFlinkJoin {
  private InsecureFlinkJoin() {}

  public static final String ACCUMULATOR = "insecure-join-digest";

  /**
   * Managed memory of the embedded TaskManager unless {@link Options#managedMemory} says otherwise.
   */
  public static final String DEFAULT_MANAGED_MEMORY = "1g";

  /**
   * @param rows rows of the join result
   * @param digest {@link RowDigest} of the result rows
   * @param seconds wall time of the Flink job execution ({@code env.execute}, MiniCluster start
   *     included), excluding table generation, the header-stripping copy and planning
   * @param joinOperator the join node of Flink's optimised physical plan, e.g. {@code HashJoin} or
   *     {@code SortMergeJoin} (with its build side/broadcast attributes when present)
   * @param phases seconds per phase: prepare (header-less copy), plan (DDL, parse, optimise),
   *     execute (= seconds), netRuntime (the job's own runtime as Flink reports it), sinceJvmStart
   *     (the JVM's uptime when the job ended)
   * @param plan Flink's explain output
   */
  public record Result(
      long rows,
      RowDigest digest,
      double seconds,
      String joinOperator,
      Map<String, Double> phases,
      String plan) {

    public String toJson() {
      ObjectNode n = Json.object();
      n.put("rows", rows);
      n.put("digest", digest.toString());
      n.put("seconds", Json.three(seconds));
      n.put("joinOperator", joinOperator);
      ObjectNode ph = n.putObject("phases");
      phases.forEach((k, v) -> ph.put(k, Json.three(v)));
      return Json.write(n);
    }
  }

  /**
   * Knobs of the embedded cluster.
   *
   * @param managedMemory TaskManager managed memory (hash tables and sort buffers of the join),
   *     e.g. "1g"
   * @param extra further Flink configuration (applied last)
   */
  public record Options(String managedMemory, Map<String, String> extra) {
    public static Options defaults() {
      return new Options(DEFAULT_MANAGED_MEMORY, Map.of());
    }
  }

  public static Result run(
      Path aCsv,
      TableSchema aSchema,
      Path bCsv,
      TableSchema bSchema,
      String sql,
      int parallelism,
      Optional<Path> outDir)
      throws Exception {
    return run(aCsv, aSchema, bCsv, bSchema, sql, parallelism, outDir, Options.defaults());
  }

  public static Result run(
      Path aCsv,
      TableSchema aSchema,
      Path bCsv,
      TableSchema bSchema,
      String sql,
      int parallelism,
      Optional<Path> outDir,
      Options options)
      throws Exception {
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism < 1");
    }
    Map<String, Double> phases = new LinkedHashMap<>();
    Path tmp = Files.createTempDirectory("psi-bench-join-");
    try {
      long t0 = System.nanoTime();
      Path aDir = tmp.resolve("a");
      Path bDir = tmp.resolve("b");
      checkHeader("a", aCsv, CsvParts.split(aCsv, aDir, "a", parallelism).header(), aSchema);
      checkHeader("b", bCsv, CsvParts.split(bCsv, bDir, "b", parallelism).header(), bSchema);
      long t1 = System.nanoTime();
      phases.put("prepare", (t1 - t0) / 1e9);

      Configuration conf = new Configuration();
      conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
      conf.set(TaskManagerOptions.NUM_TASK_SLOTS, parallelism);
      conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse(options.managedMemory()));
      conf.setString("io.tmp.dirs", tmp.resolve("flink-tmp").toString());
      options.extra().forEach(conf::setString);
      StreamExecutionEnvironment env =
          StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
      env.setRuntimeMode(RuntimeExecutionMode.BATCH);
      StreamTableEnvironment tEnv =
          StreamTableEnvironment.create(env, EnvironmentSettings.inBatchMode());
      tEnv.executeSql(createTable("a", aSchema, aDir));
      tEnv.executeSql(createTable("b", bSchema, bDir));
      Table result = tEnv.sqlQuery(sql);
      String plan = result.explain(ExplainDetail.ESTIMATED_COST);
      String joinOperator = joinOperator(plan);

      DataStream<Row> rows = tEnv.toDataStream(result);
      if (outDir.isPresent()) {
        // the same Avro writer as the private join's output, so both pay the same for writing
        TableSink.write(
            RowDigests.digestAndForward(rows, ACCUMULATOR),
            outputSchema(result.getResolvedSchema()),
            outDir.get().toUri().toString(),
            TableFormat.AVRO);
      } else {
        RowDigests.ofStream(rows, ACCUMULATOR);
      }
      long t2 = System.nanoTime();
      phases.put("plan", (t2 - t1) / 1e9);

      JobExecutionResult job = env.execute("insecure-join");
      long t3 = System.nanoTime();
      double seconds = (t3 - t2) / 1e9;
      phases.put("execute", seconds);
      phases.put("netRuntime", job.getNetRuntime() / 1e3);
      phases.put("sinceJvmStart", ManagementFactory.getRuntimeMXBean().getUptime() / 1e3);
      RowDigest digest = RowDigests.result(job, ACCUMULATOR);
      return new Result(digest.count(), digest, seconds, joinOperator, phases, plan);
    } finally {
      deleteTree(tmp);
    }
  }

  /** Our table schema for the columns of Flink's result, e.g. VARCHAR becomes STRING. */
  static TableSchema outputSchema(ResolvedSchema schema) {
    List<Column> columns = new ArrayList<>();
    for (org.apache.flink.table.catalog.Column c : schema.getColumns()) {
      LogicalType t = c.getDataType().getLogicalType();
      ColumnType type =
          switch (t.getTypeRoot()) {
            case BOOLEAN -> ColumnType.BOOLEAN;
            case INTEGER -> ColumnType.INT;
            case BIGINT -> ColumnType.BIGINT;
            case FLOAT -> ColumnType.FLOAT;
            case DOUBLE -> ColumnType.DOUBLE;
            case CHAR, VARCHAR -> ColumnType.STRING;
            case BINARY, VARBINARY -> ColumnType.BYTES;
            default ->
                throw new IllegalArgumentException(
                    "result column "
                        + c.getName()
                        + " has type "
                        + t
                        + ", which psi-flink does not write");
          };
      columns.add(new Column(c.getName(), type, t.isNullable()));
    }
    return new TableSchema(columns);
  }

  private static void checkHeader(
      String table, Path file, List<String> header, TableSchema schema) {
    if (!header.equals(schema.names())) {
      throw new IllegalArgumentException(
          "header of "
              + file
              + " is "
              + header
              + " but table "
              + table
              + " has columns "
              + schema.names());
    }
  }

  static String createTable(String name, TableSchema schema, Path dir) {
    StringBuilder sb =
        new StringBuilder("CREATE TEMPORARY TABLE ").append(ident(name)).append(" (");
    for (int i = 0; i < schema.size(); i++) {
      Column c = schema.column(i);
      sb.append(i == 0 ? "" : ", ").append(ident(c.name())).append(' ').append(c.type().sqlName());
      if (!c.nullable()) {
        sb.append(" NOT NULL");
      }
    }
    sb.append(") WITH (")
        .append("'connector' = 'filesystem', ")
        .append("'path' = ")
        .append(literal(dir.toUri().toString()))
        .append(", ")
        .append("'format' = 'csv', ")
        .append("'csv.allow-comments' = 'false', ")
        .append("'csv.ignore-parse-errors' = 'false', ")
        .append("'csv.allow-trailing-comma' = 'false', ")
        .append("'csv.fail-on-missing-columns' = 'true', ")
        .append("'csv.empty-string-as-null' = 'true'")
        .append(')');
    return sb.toString();
  }

  private static String ident(String s) {
    return '`' + s.replace("`", "``") + '`';
  }

  private static String literal(String s) {
    return '\'' + s.replace("'", "''") + '\'';
  }

  private static final Pattern JOIN_NODE =
      Pattern.compile(
          "\\b(AdaptiveJoin|HashJoin|SortMergeJoin|NestedLoopJoin|MultipleInput|Join)\\((.*)\\)");
  private static final Set<String> JOIN_ATTRIBUTES =
      Set.of(
          "joinType",
          "build",
          "isBroadcast",
          "tryDistinctBuildRow",
          "originalJoin",
          "leftIsBuild",
          "singleRowJoin");

  /**
   * The join node of the optimised physical plan with the attributes that say which algorithm runs
   * (e.g. {@code HashJoin(joinType=[InnerJoin], build=[right])}); "none" if there is none.
   */
  static String joinOperator(String plan) {
    int start = plan.indexOf("== Optimized Physical Plan ==");
    int end = plan.indexOf("== Optimized Execution Plan ==");
    String physical = start < 0 ? plan : plan.substring(start, end > start ? end : plan.length());
    for (String line : physical.split("\n")) {
      Matcher m = JOIN_NODE.matcher(line);
      if (m.find()) {
        List<String> keep = new ArrayList<>();
        Matcher attr = Pattern.compile("(\\w+)=\\[([^\\]]*)\\]").matcher(m.group(2));
        while (attr.find()) {
          if (JOIN_ATTRIBUTES.contains(attr.group(1))) {
            keep.add(attr.group(1) + "=[" + attr.group(2) + "]");
          }
        }
        return m.group(1) + "(" + String.join(", ", keep) + ")";
      }
    }
    return "none";
  }

  /** Parses {@code name TYPE [NOT NULL], ...} (types as in {@link ColumnType#sqlName()}). */
  public static TableSchema parseSchema(String text) {
    List<Column> cols = new ArrayList<>();
    for (String part : text.split(",")) {
      String[] t = part.trim().split("\\s+");
      if (t.length != 2
          && !(t.length == 4 && t[2].equalsIgnoreCase("NOT") && t[3].equalsIgnoreCase("NULL"))) {
        throw new IllegalArgumentException("bad column '" + part.trim() + "' in schema: " + text);
      }
      ColumnType type =
          Stream.of(ColumnType.values())
              .filter(ct -> ct.sqlName().equalsIgnoreCase(t[1]))
              .findFirst()
              .orElseThrow(() -> new IllegalArgumentException("unknown type " + t[1]));
      cols.add(new Column(t[0], type, t.length == 2));
    }
    return new TableSchema(cols);
  }

  /**
   * Deletes a directory tree. Flink's IOManager may still be removing its own spill directory
   * inside it when the job has returned, so vanished entries are fine.
   */
  private static void deleteTree(Path root) {
    for (int attempt = 0; attempt < 3 && Files.exists(root); attempt++) {
      try {
        Files.walkFileTree(
            root,
            new SimpleFileVisitor<>() {
              @Override
              public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                  throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
              }

              @Override
              public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                  return FileVisitResult.CONTINUE;
                }
                throw e;
              }

              @Override
              public FileVisitResult postVisitDirectory(Path dir, IOException e)
                  throws IOException {
                Files.deleteIfExists(dir);
                return FileVisitResult.CONTINUE;
              }
            });
      } catch (NoSuchFileException | DirectoryNotEmptyException e) {
        // raced with Flink's own cleanup: walk again
      } catch (IOException e) {
        System.err.println("warning: could not delete " + root + ": " + e);
        return;
      }
    }
  }

  /** The text {@link #parseSchema} reads back as {@code schema}. */
  static String schemaText(TableSchema schema) {
    List<String> cols = new ArrayList<>();
    for (Column c : schema.columns()) {
      cols.add(c.name() + " " + c.type().sqlName() + (c.nullable() ? "" : " NOT NULL"));
    }
    return String.join(", ", cols);
  }

  // the insecure join's command line
  static final TypedOption<Path> A =
      TypedOption.path("a", "PATH", "table a's file or directory").asRequired();
  static final TypedOption<Path> B =
      TypedOption.path("b", "PATH", "table b's file or directory").asRequired();
  static final TypedOption<String> SQL =
      TypedOption.text("sql", "SQL", "the join", TableGenerator.DEFAULT_QUERY);
  static final TypedOption<Integer> PARALLELISM =
      TypedOption.integer("parallelism", "P", "the join's parallelism", 2, 1);
  static final TypedOption<Path> OUT =
      TypedOption.path(
          "out", "DIR", "where the joined rows are written (default: only counted and digested)");
  static final TypedOption<Boolean> JSON =
      TypedOption.flag("json", "print the outcome as one JSON object");
  static final TypedOption<TableSchema> SCHEMA_A =
      schema(
          "schema-a",
          "table a's schema, 'id BIGINT, name STRING NOT NULL, ...' (default: the bench table a's)");
  static final TypedOption<TableSchema> SCHEMA_B =
      schema("schema-b", "table b's schema (default: the bench table b's)");
  static final TypedOption<String> MANAGED_MEMORY =
      new TypedOption<>(
          "managed-memory",
          String.class,
          "SIZE",
          "the MiniCluster's managed memory, e.g. 1g",
          DEFAULT_MANAGED_MEMORY,
          false,
          s -> {
            MemorySize.parse(s);
            return s;
          },
          t -> t);

  /** The command line of the insecure join's main. */
  static final CommandLineSyntax SYNTAX =
      new CommandLineSyntax(
          "InsecureFlinkJoin",
          "Joins two tables with a plain Flink SQL batch join and prints rows, digest, seconds and the "
              + "join operator.",
          List.of(A, B, SQL, PARALLELISM, OUT, JSON, SCHEMA_A, SCHEMA_B, MANAGED_MEMORY));

  private static TypedOption<TableSchema> schema(String name, String description) {
    return new TypedOption<>(
        name,
        TableSchema.class,
        "SCHEMA",
        description,
        null,
        false,
        InsecureFlinkJoin::parseSchema,
        InsecureFlinkJoin::schemaText);
  }

  /** See {@link #SYNTAX}; {@code --help} lists the options. */
  public static void main(String[] args) throws Exception {
    ToolOptions.Parsed parsed =
        ToolOptions.parse(SYNTAX, "InsecureFlinkJoin", args, System.out, System.err);
    if (parsed.done()) {
      System.exit(parsed.exitCode());
      return;
    }
    OptionValues o = parsed.values();
    Path a = o.get(A);
    Path b = o.get(B);
    String sql = o.get(SQL);
    int parallelism = o.get(PARALLELISM);
    Optional<Path> out = Optional.ofNullable(o.has(OUT) ? o.get(OUT) : null);
    boolean json = o.get(JSON);
    TableSchema schemaA = o.has(SCHEMA_A) ? o.get(SCHEMA_A) : TableGenerator.SCHEMA_A;
    TableSchema schemaB = o.has(SCHEMA_B) ? o.get(SCHEMA_B) : TableGenerator.SCHEMA_B;
    Options options = new Options(o.get(MANAGED_MEMORY), Map.of());
    Result r = run(a, schemaA, b, schemaB, sql, parallelism, out, options);
    if (json) {
      System.out.println(r.toJson());
    } else {
      System.out.printf(
          Locale.ROOT,
          "rows        %d%ndigest      %s%nseconds     %.3f%njoin        %s%nphases      %s%n",
          r.rows(),
          r.digest(),
          r.seconds(),
          r.joinOperator(),
          r.phases());
    }
  }
}
