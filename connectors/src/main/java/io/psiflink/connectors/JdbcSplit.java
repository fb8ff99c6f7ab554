package io.psiflink.connectors;

import java.io.IOException;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * One part of a JDBC table, read by one query: the rows matching {@code where} ({@link
 * JdbcTable#plan}). Immutable.
 */
record JdbcSplit(String id, String where) implements SourceSplit, java.io.Serializable {
  @Override
  public String splitId() {
    return id;
  }

  /** Serializes splits (and lists of them, for the enumerator's state). */
  static final class Serializer implements SimpleVersionedSerializer<JdbcSplit> {
    static final Serializer INSTANCE = new Serializer();

    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(JdbcSplit split) throws IOException {
      DataOutputSerializer out = new DataOutputSerializer(64);
      write(split, out);
      return out.getCopyOfBuffer();
    }

    @Override
    public JdbcSplit deserialize(int version, byte[] bytes) throws IOException {
      return read(new DataInputDeserializer(bytes));
    }

    static void write(JdbcSplit split, DataOutputSerializer out) throws IOException {
      out.writeUTF(split.id());
      out.writeUTF(split.where());
    }

    static JdbcSplit read(DataInputDeserializer in) throws IOException {
      return new JdbcSplit(in.readUTF(), in.readUTF());
    }
  }

  /** The enumerator's state: the splits not yet assigned. */
  static final class ListSerializer
      implements SimpleVersionedSerializer<java.util.List<JdbcSplit>> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(java.util.List<JdbcSplit> splits) throws IOException {
      DataOutputSerializer out = new DataOutputSerializer(256);
      out.writeInt(splits.size());
      for (JdbcSplit s : splits) {
        Serializer.write(s, out);
      }
      return out.getCopyOfBuffer();
    }

    @Override
    public java.util.List<JdbcSplit> deserialize(int version, byte[] bytes) throws IOException {
      DataInputDeserializer in = new DataInputDeserializer(bytes);
      int n = in.readInt();
      java.util.List<JdbcSplit> splits = new java.util.ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        splits.add(Serializer.read(in));
      }
      return splits;
    }
  }
}
