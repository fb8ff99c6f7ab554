package io.psiflink.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.query.ExpectedColumns;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A job refuses, before its handshake, files whose columns differ from the registered ones. */
class ExpectedColumnsJobTest {
  @TempDir Path dir;

  private Map<String, String> args(Path table, List<Column> registered) {
    Map<String, String> a = new HashMap<>();
    a.put("party", "B");
    a.put("table", table.toString());
    a.put("sql", "SELECT b.* FROM a JOIN b ON a.k = b.k");
    a.put("session", "s");
    // nothing listens here: a job that got as far as its handshake would fail to connect instead
    a.put("bridge", "127.0.0.1:1");
    a.put("cert", "c");
    a.put("key", "k");
    a.put("ca", "ca");
    a.put("peer", "party-a");
    a.put("peer-cert-sha256", "ab".repeat(32));
    a.put("work", dir.resolve("work").toString());
    a.put("expected-columns", ExpectedColumns.format(registered));
    return a;
  }

  @Test
  void filesThatGrewAColumnAfterRegistrationAreRefusedNamingIt() throws Exception {
    Path table = dir.resolve("b.csv");
    Files.writeString(table, "k,email,ssn\n1,x@y.org,123-45-6789\n");
    List<Column> registered =
        List.of(
            new Column("k", ColumnType.BIGINT, true), new Column("email", ColumnType.STRING, true));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> PrivateJoinJob.run(PartyMain.config(args(table, registered))));
    assertEquals(
        "the table of party B does not have the registered columns: column 'ssn' "
            + "(STRING) was added; the join was refused before the handshake (register the dataset "
            + "anew to use the new columns)",
        e.getMessage());
  }
}
