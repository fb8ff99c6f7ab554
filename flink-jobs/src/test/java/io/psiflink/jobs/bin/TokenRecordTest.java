package io.psiflink.jobs.bin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.psiflink.connectors.row.Varint;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class TokenRecordTest {
  @Test
  void theShuffledRecordCarriesTheBinAndExactlyTheBinsRecord() {
    for (int len : new int[] {0, 1, 127, 128, 300, 20_000}) {
      // a batch's buffer: only the row's len bytes from offset 3 count
      byte[] buffer = new byte[len + 6];
      Arrays.fill(buffer, 0, 3, (byte) 5);
      Arrays.fill(buffer, 3, len + 3, (byte) 7);
      Arrays.fill(buffer, len + 3, len + 6, (byte) 9);
      byte[] row = Arrays.copyOfRange(buffer, 3, len + 3);
      for (int bin : new int[] {0, 1, 255, 256, 65_535}) {
        byte[] r = TokenRecord.of(bin, 0x0123_4567_89ab_cdefL, -2L, buffer, 3, len);
        assertEquals(bin, TokenRecord.bin(r));
        ByteArrayOutputStream direct = new ByteArrayOutputStream();
        BinChunks.append(direct, 0x0123_4567_89ab_cdefL, -2L, row);
        assertArrayEquals(
            direct.toByteArray(), Arrays.copyOfRange(r, TokenRecord.BIN_BYTES, r.length));
      }
    }
  }

  @Test
  void varintPutAndSizeAgreeWithWrite() {
    for (int n : new int[] {0, 1, 127, 128, 16_383, 16_384, 1 << 21, Integer.MAX_VALUE}) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      Varint.write(out, n);
      byte[] b = new byte[Varint.size(n)];
      assertEquals(b.length, Varint.put(b, 0, n));
      assertArrayEquals(out.toByteArray(), b);
      assertEquals(n, Varint.value(Varint.read(b, 0, b.length)));
    }
  }
}
