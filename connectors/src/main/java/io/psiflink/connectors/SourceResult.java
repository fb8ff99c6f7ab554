package io.psiflink.connectors;

import io.psiflink.connectors.row.RecordView;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * What {@link TableSource#read} gives: the typed rows of the table (or, from {@link
 * TableSource#readRecords}, the records that {@code view} reads the fields of) and the records that
 * did not make it (every record of the table ends up in exactly one of the two), and each parallel
 * reader's {@link ReadCounts} when it finished, for a {@link BadRowGate}.
 */
public record SourceResult<T>(
    DataStream<T> rows,
    RecordView<T> view,
    DataStream<BadRow> quarantined,
    DataStream<ReadCounts> counts) {}
