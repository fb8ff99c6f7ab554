package io.psiflink.connectors;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.types.Row;

/**
 * What {@link TableSource#read} gives: the typed rows of the table and the records that did not
 * make it. Every record of the file ends up in exactly one of the two.
 */
public record SourceResult(DataStream<Row> rows, DataStream<BadRow> quarantined) {}
