package io.psiflink.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TableFormatTest {

  @Test
  void byExtensionIgnoringCase() {
    assertEquals(TableFormat.CSV, TableFormat.fromPath("/x/y.csv"));
    assertEquals(TableFormat.CSV, TableFormat.fromPath("file:///x/Y.CSV"));
    assertEquals(TableFormat.AVRO, TableFormat.fromPath("hdfs://nn:8020/t/part-0.Avro"));
    assertEquals(
        TableFormat.PARQUET, TableFormat.fromPath("hdfs://nn:8020/t/part-0.snappy.PARQUET"));
  }

  @Test
  void otherExtensionsNameThePathAndTheSupportedOnes() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> TableFormat.fromPath("/x/t.orc"));
    assertTrue(e.getMessage().contains("/x/t.orc"), e.getMessage());
    assertTrue(
        e.getMessage().contains(".csv")
            && e.getMessage().contains(".avro")
            && e.getMessage().contains(".parquet"),
        e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> TableFormat.fromPath("/x/csv"));
  }
}
