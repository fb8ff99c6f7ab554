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
}
