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
      byte[] buffer = new byte[len + 3]; // a reused encode buffer: only its first len bytes count
      Arrays.fill(buffer, (byte) 7);
      Arrays.fill(buffer, len, len + 3, (byte) 9);
      byte[] row = Arrays.copyOf(buffer, len);
      for (int bin : new int[] {0, 1, 255, 256, 65_535}) {
        byte[] r = TokenRecord.of(bin, 0x0123_4567_89ab_cdefL, -2L, buffer, len);
        assertEquals(bin, TokenRecord.bin(r));
        ByteArrayOutputStream viaRecord = new ByteArrayOutputStream();
        TokenRecord.appendTo(viaRecord, r);
        ByteArrayOutputStream direct = new ByteArrayOutputStream();
        BinChunks.append(direct, 0x0123_4567_89ab_cdefL, -2L, row);
        assertArrayEquals(direct.toByteArray(), viaRecord.toByteArray());
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
