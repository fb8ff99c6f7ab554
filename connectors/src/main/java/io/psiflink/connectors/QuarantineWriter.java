package io.psiflink.connectors;

import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.types.Row;

/**
 * Writes quarantined records as CSV straight into a directory, one file per parallel instance
 * ({@code part-<subtask>-<attempt>.csv}, only if it has records), and when its input ends closes
 * the file and emits how many it wrote. Unlike a FileSink, whose files are committed only when the
 * whole job succeeds, the files are complete as soon as the count is emitted: a {@link BadRowGate}
 * that fails the job afterwards leaves a quarantine that can be kept ({@link
 * QuarantineSink#writeFiles}).
 */
final class QuarantineWriter extends AbstractStreamOperator<Long>
    implements OneInputStreamOperator<BadRow, Long>, BoundedOneInput {
  private static final long serialVersionUID = 1L;

  private final String dir;
  private final BulkWriter.Factory<Row> factory;
  private transient FSDataOutputStream stream;
  private transient BulkWriter<Row> writer;
  private transient long count;

  QuarantineWriter(String dir) {
    this.dir = dir;
    this.factory = CsvBulkWriter.factory(QuarantineSink.SCHEMA, CsvOptions.DEFAULT);
  }

  @Override
  public void processElement(StreamRecord<BadRow> element) throws Exception {
    if (writer == null) {
      var task = getRuntimeContext().getTaskInfo();
      Path file =
          new Path(
              dir,
              "part-"
                  + task.getIndexOfThisSubtask()
                  + "-"
                  + task.getAttemptNumber()
                  + TableFormat.CSV.extension());
      stream = file.getFileSystem().create(file, FileSystem.WriteMode.OVERWRITE);
      writer = factory.create(stream);
    }
    BadRow b = element.getValue();
    writer.addElement(Row.of(b.source(), b.line(), b.reason(), b.raw()));
    count++;
  }

  @Override
  public void endInput() throws Exception {
    if (writer != null) {
      writer.finish();
      stream.close();
      writer = null;
      stream = null;
    }
    output.collect(new StreamRecord<>(count));
  }

  @Override
  public void close() throws Exception {
    try {
      if (stream != null) {
        stream.close(); // a failed attempt: the file is incomplete, its staging dir is dropped
      }
    } finally {
      super.close();
    }
  }
}
