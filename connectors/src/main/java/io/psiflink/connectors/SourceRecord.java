package io.psiflink.connectors;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.types.Row;

/**
 * The record a table file format hands to {@link RowParser}: a row of (file, position, error, raw,
 * payload). The file is the path of the part file the record came from (one String instance per
 * file, so carrying it costs a reference), which a quarantined record reports. The payload is
 * format specific (CSV: the record packed, {@link CsvFields}, raw text included, so raw is null;
 * Avro: the already converted row); error is set, and payload null, when the record is malformed. A
 * plain {@link Row} with an explicit {@link RowTypeInfo} keeps Flink's serializers typed (no Kryo).
 */
final class SourceRecord {
  static final int FILE = 0;
  static final int POSITION = 1;
  static final int ERROR = 2;
  static final int RAW = 3;
  static final int PAYLOAD = 4;

  private SourceRecord() {}

  static RowTypeInfo type(TypeInformation<?> payload) {
    return new RowTypeInfo(
        new TypeInformation<?>[] {Types.STRING, Types.LONG, Types.STRING, Types.STRING, payload},
        new String[] {"file", "position", "error", "raw", "payload"});
  }

  /**
   * One per record read: set field by field, as {@code Row.of} would first copy a varargs array.
   */
  static Row good(String file, long position, String raw, Object payload) {
    Row r = new Row(5);
    r.setField(FILE, file);
    r.setField(POSITION, position);
    r.setField(RAW, raw);
    r.setField(PAYLOAD, payload);
    return r;
  }

  static Row bad(String file, long position, String error, String raw) {
    return Row.of(file, position, error, raw, null);
  }

  static String file(Row r) {
    return (String) r.getField(FILE);
  }

  static long position(Row r) {
    return (Long) r.getField(POSITION);
  }

  static String error(Row r) {
    return (String) r.getField(ERROR);
  }

  static String raw(Row r) {
    return (String) r.getField(RAW);
  }

  static Object payload(Row r) {
    return r.getField(PAYLOAD);
  }
}
