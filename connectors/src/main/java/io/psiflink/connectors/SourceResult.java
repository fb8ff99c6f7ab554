package io.psiflink.connectors;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.types.Row;

/**
 * What {@link TableSource#read} gives: the typed rows of the table and the records that did not
 * make it (every record of the table ends up in exactly one of the two), and each parallel reader's
 * {@link ReadCounts} when it finished, for a {@link BadRowGate}.
 */
public record SourceResult(
    DataStream<Row> rows, DataStream<BadRow> quarantined, DataStream<ReadCounts> counts) {}
