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
    // as a bin's spill reports a write into a full io.tmp.dirs
    Throwable t =
        new RuntimeException(
            "cannot write the bins' spill file /w/party-B/tmp/psi-bins-1.spill",
            new IOException("No space left on device"));
    assertEquals(
        "cannot write the bins' spill file /w/party-B/tmp/psi-bins-1.spill: No space left on"
            + " device (a disk is full: this party's work directory /w/party-B (its spill, in"
            + " io.tmp.dirs) or its"
            + " output's or quarantine's file system)",
        Errors.explain(t, "/w/party-B"));
    assertEquals(
        "cannot write the bins' spill file /w/party-B/tmp/psi-bins-1.spill: No space left on"
            + " device (a disk is full: this party's spill directories (Flink's io.tmp.dirs) or its"
            + " output's or quarantine's file system)",
        Errors.explain(t));
    // the hybrid shuffle refuses a nearly full disk before any write fails
    assertEquals(
        "Failed to choose a storage tier to start a new segment. (No space left on device: Flink's"
            + " shuffle keeps part of its disk free and found too little; a disk is full: this"
            + " party's work directory /w/party-B (its spill, in io.tmp.dirs) or its output's or"
            + " quarantine's file system)",
        Errors.explain(
            new IOException("Failed to choose a storage tier to start a new segment."),
            "/w/party-B"));
    assertEquals("boom", Errors.explain(new IOException("boom"), "/w"));
  }
}
