package io.psiflink.jobs.read;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SizeEstimateTest {
  @TempDir Path dir;

  private final SplittableRandom random = new SplittableRandom(7);

  /** A CSV part with a header and {@code rows} rows of varying length. */
  private void part(Path file, int rows) throws IOException {
    StringBuilder sb = new StringBuilder("id,email,spend\n");
    for (int i = 0; i < rows; i++) {
      sb.append(random.nextLong(1, 1L << 40))
          .append(',')
          .append("user")
          .append(random.nextInt(1_000_000))
          .append("@example.org")
          .append(',')
          .append(random.nextInt(100_000))
          .append('\n');
    }
    Files.createDirectories(file.getParent());
    Files.writeString(file, sb);
  }

  private static void assertWithinTenPercent(long expected, long actual) {
    assertEquals(expected, actual, expected / 10.0, "estimate " + actual + " for " + expected);
  }

  @Test
  void directoryOfCsvParts() throws Exception {
    Path table = dir.resolve("t");
    part(table.resolve("part-0.csv"), 40_000); // beyond the 1 MiB sample
    part(table.resolve("part-1.csv"), 0);
    part(table.resolve("part-2.csv"), 5_000);
    Files.writeString(table.resolve("_SUCCESS"), "");
    assertWithinTenPercent(45_000, SizeEstimate.rows(table.toString()));
    assertWithinTenPercent(5_000, SizeEstimate.rows(table.resolve("part-2.csv").toString()));
  }

  @Test
  void manyPartsAreExtrapolatedFromTheFirstOnes() throws Exception {
    Path table = dir.resolve("many");
    for (int i = 0; i < 12; i++) {
      part(table.resolve(String.format("part-%02d.csv", i)), i < 10 ? 2_000 : 6_000);
    }
    assertWithinTenPercent(32_000, SizeEstimate.rows(table.toString()));
  }
}
