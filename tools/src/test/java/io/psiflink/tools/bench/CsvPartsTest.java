package io.psiflink.tools.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvPartsTest {
  @TempDir Path dir;

  @Test
  void partsCutAtRecordBoundariesAndCarryTheHeaderWhenAsked() throws Exception {
    StringBuilder data = new StringBuilder();
    for (int i = 0; i < 1000; i++) {
      // every 7th record has a quoted line break, which must never be a cut
      data.append(i).append(i % 7 == 0 ? ",\"two\nlines\"\n" : ",plain\n");
    }
    Path csv = dir.resolve("t.csv");
    Files.writeString(csv, "id,text\n" + data);
    for (boolean withHeader : new boolean[] {false, true}) {
      Path out = dir.resolve("parts-" + withHeader);
      CsvParts.Split s = CsvParts.split(csv, out, "t", 3, withHeader);
      assertEquals(List.of("id", "text"), s.header());
      assertEquals(3, s.parts().size());
      StringBuilder joined = new StringBuilder();
      for (Path p : s.parts()) {
        String text = Files.readString(p);
        if (withHeader) {
          assertTrue(text.startsWith("id,text\n"), text);
          text = text.substring("id,text\n".length());
        }
        // each part holds whole records: it starts with an id and ends with a record's LF
        assertTrue(Character.isDigit(text.charAt(0)) && text.endsWith("\n"), text);
        joined.append(text);
      }
      assertEquals(data.toString(), joined.toString());
    }
  }
}
