package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The control plane runs without the data plane: no job, Flink runtime, RocksDB or planner on the
 * coordinator's class path (its tests' class path is a superset of its runtime one). A dependency
 * that drags them back in fails here, naming the jar.
 */
class CoordinatorClassPathTest {
  private static final List<String> FORBIDDEN_JARS =
      List.of(
          "psi-flink-jobs",
          "flink-runtime",
          "flink-statebackend-rocksdb",
          "frocksdbjni",
          "rocksdbjni",
          "flink-table-planner",
          "flink-table-runtime",
          "flink-streaming-java",
          "flink-clients");

  @Test
  void noJobNorFlinkRuntimeJarIsOnTheClassPath() {
    List<String> entries =
        Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
            .map(e -> new File(e).getName())
            .toList();
    List<String> found =
        entries.stream()
            .filter(n -> FORBIDDEN_JARS.stream().anyMatch(f -> n.startsWith(f + "-")))
            .toList();
    assertEquals(List.of(), found, "the coordinator must not depend on these");
  }

  @Test
  void noJobNorFlinkRuntimeClassLoads() {
    for (String c :
        List.of(
            "io.psiflink.jobs.PartyMain",
            "org.apache.flink.runtime.jobgraph.JobGraph",
            "org.apache.flink.streaming.api.environment.StreamExecutionEnvironment",
            "org.rocksdb.RocksDB")) {
      assertThrows(ClassNotFoundException.class, () -> Class.forName(c), c);
    }
  }

  @Test
  void whatTheCoordinatorDoesUseIsThere() throws Exception {
    // the query module and Flink's file systems (schema discovery, output removal)
    assertTrue(Class.forName("io.psiflink.query.JoinQuery") != null);
    assertTrue(Class.forName("org.apache.flink.core.fs.FileSystem") != null);
  }
}
