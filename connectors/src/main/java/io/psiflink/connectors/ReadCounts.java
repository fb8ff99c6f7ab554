package io.psiflink.connectors;

import java.io.Serializable;

/**
 * What one parallel reader of a table read, sent when its input ended ({@link
 * SourceResult#counts}): rows it emitted, records it quarantined, and how many of those for a NULL
 * key. Immutable.
 */
public record ReadCounts(long rows, long quarantined, long nullKeys) implements Serializable {
  public ReadCounts plus(ReadCounts o) {
    return new ReadCounts(rows + o.rows, quarantined + o.quarantined, nullKeys + o.nullKeys);
  }
}
