package io.psiflink.connectors;

import static io.psiflink.connectors.Tables.assertSameRows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Outputs appear at their target only when the job that wrote them succeeded. */
class StagedOutputTest {
  @RegisterExtension static final FlinkCluster FLINK = new FlinkCluster();

  @TempDir Path dir;

  private static final TableSchema SCHEMA =
      new TableSchema(
          List.of(
              new Column("id", ColumnType.BIGINT, false),
              new Column("name", ColumnType.STRING, true)));

  private static List<Row> rows() {
    List<Row> rows = new ArrayList<>();
    for (long i = 0; i < 20_000; i++) {
      rows.add(Row.of(i, "name " + i));
    }
    return rows;
  }

  /** Fails on the row with id {@code failAt} (or never, for a negative one). */
  private record FailAt(long failAt) implements MapFunction<Row, Row> {
    @Override
    public Row map(Row r) {
      if ((Long) r.getField(0) == failAt) {
        throw new IllegalStateException("injected failure at row " + failAt);
      }
      return r;
    }
  }

  private static void write(StagedOutput out, TableFormat format, long failAt) throws Exception {
    StreamExecutionEnvironment env = FLINK.batchEnv();
    // small parts, so that some are finished (and renamed, were it not for the staging) before
    // the failure
    TableSink.write(
        env.fromData(rows(), FlinkTypes.rowType(SCHEMA))
            .rebalance()
            .map(new FailAt(failAt))
            .returns(FlinkTypes.rowType(SCHEMA)),
        SCHEMA,
        out.stagingDir(),
        format,
        4096);
    env.execute("write");
  }

  private List<String> visible(Path p) throws Exception {
    try (Stream<Path> s = Files.list(p)) {
      return s.map(x -> x.getFileName().toString()).filter(TableFiles::isVisible).toList();
    }
  }

  @ParameterizedTest
  @EnumSource(TableFormat.class)
  void aFailedJobLeavesNoTargetAndARerunSucceeds(TableFormat format) throws Exception {
    String target = dir.resolve("out").toString();
    StagedOutput first = StagedOutput.prepare(target);
    Exception e = assertThrows(Exception.class, () -> write(first, format, 15_000));
    assertTrue(
        org.apache.flink.util.ExceptionUtils.findThrowableWithMessage(
                e, "injected failure at row 15000")
            .isPresent(),
        e.toString());
    // the driver died here: no abort, no commit
    assertFalse(Files.exists(Path.of(target)));
    assertEquals(List.of(), visible(dir), "nothing visible next to the target either");
    assertThrows(TableException.class, () -> TableFiles.of(target));
    assertTrue(Files.isDirectory(Path.of(first.stagingDir())), "the staging stays, hidden");

    StagedOutput second = StagedOutput.prepare(target);
    write(second, format, -1);
    assertFalse(Files.exists(Path.of(target)), "not visible before the commit");
    second.commit();
    assertTrue(TableSink.isComplete(target));
    assertFalse(Files.exists(Path.of(second.stagingDir())));
    // Parquet buffers a row group in memory, so its parts do not roll at 4 KiB
    assertTrue(
        visible(Path.of(target)).size() > (format == TableFormat.PARQUET ? 0 : 1), "several parts");
    assertSameRows(rows(), TableReader.readAll(target, format, SCHEMA).rows());

    assertNull(first.abort());
    assertFalse(Files.exists(Path.of(first.stagingDir())));
  }

  @Test
  void refusesAnExistingOutputButTakesAnEmptyDirectory() throws Exception {
    Path full = Files.createDirectories(dir.resolve("full"));
    Files.writeString(full.resolve("part-0.avro"), "x");
    TableException e =
        assertThrows(TableException.class, () -> StagedOutput.prepare(full.toString()));
    assertTrue(e.getMessage().contains("already exists and is not empty"), e.getMessage());
    Files.writeString(dir.resolve("file"), "x");
    assertThrows(TableException.class, () -> StagedOutput.prepare(dir.resolve("file").toString()));

    Path empty = Files.createDirectories(dir.resolve("empty"));
    StagedOutput out = StagedOutput.prepare(empty + "/");
    write(out, TableFormat.CSV, -1);
    out.commit();
    assertSameRows(rows(), TableReader.readAll(empty.toString(), TableFormat.CSV, SCHEMA).rows());

    // a target that appeared while the job ran is not overwritten
    StagedOutput late = StagedOutput.prepare(dir.resolve("late").toString());
    write(late, TableFormat.CSV, -1);
    Files.createDirectories(dir.resolve("late"));
    Files.writeString(dir.resolve("late").resolve("other"), "x");
    assertThrows(TableException.class, late::commit);
    assertEquals(List.of("other"), visible(dir.resolve("late")));
  }

  /**
   * A staging directory gone at the commit (its file system unmounted or cleaned up under the job)
   * is an error, not an empty output published as complete.
   */
  @Test
  void aStagingDirectoryGoneAtTheCommitIsAnErrorNotAnEmptyOutput() throws Exception {
    String target = dir.resolve("gone").toString();
    StagedOutput out = StagedOutput.prepare(target);
    write(out, TableFormat.CSV, -1);
    deleteTree(Path.of(out.stagingDir()));
    TableException e = assertThrows(TableException.class, out::commit);
    assertTrue(
        e.getMessage().contains("cannot commit the output '" + target + "'")
            && e.getMessage().contains("'" + out.stagingDir() + "' is gone"),
        e.getMessage());
    assertFalse(Files.exists(Path.of(target)), "an output appeared");
    assertFalse(Files.exists(Path.of(out.stagingDir())), "the commit made a staging directory");
  }

  @Test
  void aReplacingOutputReplacesThePreviousRun() throws Exception {
    Path q = Files.createDirectories(dir.resolve("quarantine"));
    Files.writeString(q.resolve("part-old.csv"), "old");
    StagedOutput out = StagedOutput.prepare(q.toString(), true);
    write(out, TableFormat.CSV, -1);
    out.commit();
    assertFalse(Files.exists(q.resolve("part-old.csv")));
    assertSameRows(rows(), TableReader.readAll(q.toString(), TableFormat.CSV, SCHEMA).rows());
  }

  /** {@code --out out}: a relative name without a parent commits into the working directory. */
  @Test
  void aRelativeTargetWithoutAParentCommitsInTheWorkingDirectory() throws Exception {
    String name = "staged-output-test-" + java.util.UUID.randomUUID();
    Path target = Path.of(name).toAbsolutePath();
    try {
      StagedOutput out = StagedOutput.prepare(name);
      // staged beside the target: a local path qualified as file:/...
      assertEquals(
          target.getParent(),
          Path.of(new org.apache.flink.core.fs.Path(out.stagingDir()).toUri()).getParent());
      write(out, TableFormat.CSV, -1);
      out.commit();
      assertSameRows(
          rows(), TableReader.readAll(target.toString(), TableFormat.CSV, SCHEMA).rows());
    } finally {
      if (Files.exists(target)) {
        deleteTree(target);
      }
    }
  }

  private static void deleteTree(Path root) throws Exception {
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
