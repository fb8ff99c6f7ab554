package io.psiflink.jobs.write;

import io.psiflink.connectors.StagedOutput;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * The output party's journal of completed bins, what makes a failed run resumable: when a bin's PSI
 * and payload are done, its joined rows (in the encoding the sink takes) go to a file of their own,
 * which is synced and then renamed to {@code bin-<n>}; the rename is the bin's commit. A resumed
 * run lists the committed bins before its handshake (the peer skips them too), takes their rows
 * from here instead of running them again, and the journal is removed once the output is committed.
 *
 * <p>The journal lives on the output's file system (the task managers write it, the client lists
 * it), beside the output as the hidden directory {@code <parent>/.<name>.resume-<hash of session>},
 * which readers of the parent skip like the staging directory. It holds output rows, so it needs
 * the protection the output has.
 *
 * <p>File format: {@code "PSJ1"}, the bin (i32), then per row its length (i32) and bytes, then -1,
 * the row count (i64) and a CRC32C of everything before it (i32): a torn or altered file is an
 * error naming it, never rows silently lost.
 */
public final class BinJournal implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final int MAGIC = 0x50534a31; // "PSJ1"
  private static final int MAX_ROW = 256 << 20;

  private final String dir;

  private BinJournal(String dir) {
    this.dir = dir;
  }

  /** The journal of {@code session}'s output {@code out}. */
  public static BinJournal of(String out, String session) {
    Path t = new Path(StagedOutput.stripSlash(out));
    if (t.getParent() == null) {
      throw new IllegalArgumentException("output '" + out + "' is a root directory");
    }
    return new BinJournal(
        new Path(t.getParent(), "." + t.getName() + ".resume-" + hash(session)).toString());
  }

  public String dir() {
    return dir;
  }

  /**
   * The bins committed here, of {@code bins}; none when the journal does not exist. Names other
   * than {@code bin-<n>} (in-progress files of a run that died) are ignored.
   */
  public BitSet committed(int bins) throws IOException {
    BitSet done = new BitSet(bins);
    Path d = new Path(dir);
    FileSystem fs = d.getFileSystem();
    if (!fs.exists(d)) {
      return done;
    }
    FileStatus[] entries = fs.listStatus(d);
    for (FileStatus e : entries == null ? new FileStatus[0] : entries) {
      String name = e.getPath().getName();
      if (!e.isDir() && name.matches("bin-[0-9]{1,9}")) {
        int b = Integer.parseInt(name.substring(4));
        if (b < bins) {
          done.set(b);
        }
      }
    }
    return done;
  }

  /** Removes the journal, if any (a fresh run of the session, or after the output's commit). */
  public void delete() throws IOException {
    Path d = new Path(dir);
    FileSystem fs = d.getFileSystem();
    if (fs.exists(d)) {
      fs.delete(d, true);
    }
  }

  /** Starts the entry of {@code bin}: rows go in with {@link Entry#add}, {@link Entry#commit}. */
  public Entry open(int bin) throws IOException {
    return new Entry(bin);
  }

  /**
   * Emits the committed rows of {@code bin} and returns their count.
   *
   * @throws IOException naming the file when it is torn or altered
   */
  public long replay(int bin, Consumer<byte[]> out) throws IOException {
    Path p = new Path(dir, "bin-" + bin);
    FileSystem fs = p.getFileSystem();
    CRC32C crc = new CRC32C();
    long rows = 0;
    try (DataInputStream in =
        new DataInputStream(
            new java.util.zip.CheckedInputStream(
                new BufferedInputStream(fs.open(p), 1 << 16), crc))) {
      if (in.readInt() != MAGIC || in.readInt() != bin) {
        throw new IOException("resume journal file " + p + " is not bin " + bin + "'s");
      }
      while (true) {
        int n = in.readInt();
        if (n == -1) {
          break;
        }
        if (n < 0 || n > MAX_ROW) {
          throw new IOException(
              "resume journal file " + p + " is corrupt (a row of " + n + " bytes)");
        }
        byte[] row = new byte[n];
        in.readFully(row);
        out.accept(row);
        rows++;
      }
      long count = in.readLong();
      int expected = (int) crc.getValue();
      int stored = new DataInputStream(in).readInt();
      if (count != rows || stored != expected) {
        throw new IOException(
            "resume journal file " + p + " is corrupt (row count or checksum differs)");
      }
    } catch (EOFException e) {
      throw new IOException("resume journal file " + p + " is truncated", e);
    }
    return rows;
  }

  /** One bin's rows on their way into the journal. */
  public final class Entry implements AutoCloseable {
    private final int bin;
    private final Path tmp;
    private final FileSystem fs;
    private final FSDataOutputStream raw;
    private final CRC32C crc = new CRC32C();
    // an own buffer, checksummed when drained: a DataOutputStream over a CheckedOutputStream and a
    // BufferedOutputStream updated the CRC per byte of each length and took a lock per write
    private final byte[] buf = new byte[1 << 16];
    private int pos;
    private long rows;
    private boolean closed;

    private Entry(int bin) throws IOException {
      this.bin = bin;
      Path d = new Path(dir);
      this.fs = d.getFileSystem();
      if (!fs.exists(d)) {
        fs.mkdirs(d);
      }
      // hidden, so that a run that dies leaves nothing committed listing would take
      this.tmp = new Path(d, ".bin-" + bin + "." + UUID.randomUUID() + ".tmp");
      this.raw = fs.create(tmp, FileSystem.WriteMode.NO_OVERWRITE);
      putInt(MAGIC);
      putInt(bin);
    }

    public void add(byte[] row) {
      try {
        putInt(row.length);
        put(row);
        rows++;
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(
            "cannot write the resume journal file " + tmp + ": " + e.getMessage(), e);
      }
    }

    /** Syncs the rows and renames the file into place: from here on the bin is done. */
    public void commit() throws IOException {
      putInt(-1);
      putInt((int) (rows >>> 32));
      putInt((int) rows);
      drain();
      int sum = (int) crc.getValue();
      raw.write(
          new byte[] {(byte) (sum >>> 24), (byte) (sum >>> 16), (byte) (sum >>> 8), (byte) sum});
      raw.flush();
      raw.sync();
      raw.close();
      closed = true;
      Path target = new Path(dir, "bin-" + bin);
      if (!fs.rename(tmp, target)) {
        throw new IOException("cannot commit the resume journal file " + target);
      }
    }

    /** Drops an entry that was not committed. */
    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      try {
        raw.close();
        fs.delete(tmp, false);
      } catch (IOException e) {
        // a leftover hidden file is ignored by every later run
      }
    }

    private void putInt(int v) throws IOException {
      if (buf.length - pos < 4) {
        drain();
      }
      buf[pos++] = (byte) (v >>> 24);
      buf[pos++] = (byte) (v >>> 16);
      buf[pos++] = (byte) (v >>> 8);
      buf[pos++] = (byte) v;
    }

    private void put(byte[] b) throws IOException {
      if (b.length > buf.length - pos) {
        drain();
        if (b.length > buf.length) {
          crc.update(b, 0, b.length);
          raw.write(b);
          return;
        }
      }
      System.arraycopy(b, 0, buf, pos, b.length);
      pos += b.length;
    }

    private void drain() throws IOException {
      crc.update(buf, 0, pos);
      raw.write(buf, 0, pos);
      pos = 0;
    }
  }

  private static String hash(String session) {
    try {
      byte[] h =
          MessageDigest.getInstance("SHA-256").digest(session.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(h, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public String toString() {
    return dir;
  }
}
