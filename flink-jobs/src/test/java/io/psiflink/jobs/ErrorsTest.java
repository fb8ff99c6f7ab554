package io.psiflink.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class ErrorsTest {
  @Test
  void aFetcherThreadsFailureReadsAsItsCause() {
    // the chain Flink's connector base builds around an exception of a SplitReader's fetch
    SQLException sql = new SQLException("cannot read table t (split 0: \"id\" < 5): ERROR: boom");
    Throwable t =
        new RuntimeException(
            "One or more fetchers have encountered exception",
            new RuntimeException(
                "SplitFetcher thread 0 received unexpected exception while polling "
                    + "the records",
                new IOException(sql.getMessage(), sql)));
    assertEquals("cannot read table t (split 0: \"id\" < 5): ERROR: boom", Errors.explain(t));
  }

  @Test
  void aFullDiskNamesTheDirectoriesThatHoldTheSpill() {
    // as Flink reports RocksDB's native library failing to unpack into a full io.tmp.dirs
    Throwable t =
        new RuntimeException(
            "Could not load the native RocksDB library",
            new IOException("No space left on device"));
    assertEquals(
        "Could not load the native RocksDB library: No space left on device (a disk is full:"
            + " this party's work directory /w/party-B (its spill: RocksDB, io.tmp.dirs) or its"
            + " output's or quarantine's file system)",
        Errors.explain(t, "/w/party-B"));
    assertEquals(
        "Could not load the native RocksDB library: No space left on device (a disk is full:"
            + " this party's spill directories (RocksDB's local dir, Flink's io.tmp.dirs) or its"
            + " output's or quarantine's file system)",
        Errors.explain(t));
    assertEquals("boom", Errors.explain(new IOException("boom"), "/w"));
  }
}
