package io.psiflink.connectors;

import io.psiflink.api.TableSchema;
import java.util.List;
import org.apache.flink.types.Row;

/**
 * A whole table read into memory by {@link TableReader}.
 *
 * @param schema the table's schema; null only when a directory held no part file and no schema was
 *     given
 * @param rows the rows, file by file in name order, each file in its own order
 */
public record TableContents(TableSchema schema, List<Row> rows) {}
