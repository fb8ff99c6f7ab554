package io.psiflink.connectors;

import java.io.Serializable;
import org.apache.flink.types.Row;

/** Turns the payload of a well-formed {@link SourceRecord} into a typed row of the table. */
interface FieldDecoder extends Serializable {
  /**
   * @throws RejectedRecord if the payload is not a row of the table; its message is the reason
   */
  Row decode(Object payload) throws RejectedRecord;

  /**
   * The record's raw text when the payload carries it (CSV), for a record rejected after it was
   * read; null otherwise.
   */
  default String raw(Object payload) {
    return null;
  }

  /** The payload already is the typed row (the Avro reader converts while it decodes). */
  FieldDecoder PASS_THROUGH = payload -> (Row) payload;
}
