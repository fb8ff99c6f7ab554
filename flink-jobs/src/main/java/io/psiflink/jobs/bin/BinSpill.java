package io.psiflink.jobs.bin;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The records of a subtask's bins from their arrival until their bin runs. Each bin gathers its
 * records in a chunk of about {@link #CHUNK_BYTES}; a full chunk is appended to one local file, and
 * a bin's chunks are read back when it runs ({@link #read}), in the form {@link BinTable} takes.
 * Every record is written once, in arrival order, and read once: a log, not a store, so nothing is
 * keyed, sorted or compacted (RocksDB's keyed state, which held the bins before, did all three).
 * The file lives in the task's spill directory and, while memory allows, in the OS's page cache:
 * off the JVM heap, which holds only the open chunks and 12 bytes per written chunk.
 *
 * <p>One thread uses it (the operator's mailbox thread). {@link #close} deletes the file.
 */
public final class BinSpill implements Closeable {
  /** A bin's chunk is written once it holds this many bytes. */
  public static final int CHUNK_BYTES = 128 * 1024;

  private final Path file;
  private final FileChannel channel;
  private final Bin[] bins;
  private final boolean[] taken;
  private long end;

  /**
   * Creates the spill file in {@code dir}.
   *
   * @param bins the bin count m: records belong to bins 0 to m - 1
   */
  public BinSpill(Path dir, int bins) throws IOException {
    this.file = Files.createTempFile(dir, "psi-bins-", ".spill");
    this.channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    this.bins = new Bin[bins];
    this.taken = new boolean[bins];
  }

  /** Appends the record {@code b[off, off + len)} to bin {@code bin}. */
  public void add(int bin, byte[] b, int off, int len) throws IOException {
    if (taken[bin]) {
      throw new IllegalStateException("a record for bin " + bin + " after the bin was read");
    }
    Bin g = bins[bin];
    if (g == null) {
      g = bins[bin] = new Bin();
    }
    if (g.size + len > g.buf.length) {
      g.buf = Arrays.copyOf(g.buf, Math.max(g.buf.length * 2, g.size + len));
    }
    System.arraycopy(b, off, g.buf, g.size, len);
    g.size += len;
    if (g.size >= CHUNK_BYTES) {
      writeChunk(g);
    }
  }

  /**
   * Bin {@code bin}'s records as chunks of whole records, in arrival order (none if it got no
   * record). Once per bin: its index is dropped, and no record may be added to it after.
   */
  public List<byte[]> read(int bin) throws IOException {
    if (taken[bin]) {
      throw new IllegalStateException("bin " + bin + " was read from the spill already");
    }
    taken[bin] = true;
    Bin g = bins[bin];
    if (g == null) {
      return List.of();
    }
    bins[bin] = null;
    List<byte[]> out = new ArrayList<>(g.chunks + 1);
    for (int c = 0; c < g.chunks; c++) {
      byte[] chunk = new byte[g.lengths[c]];
      ByteBuffer into = ByteBuffer.wrap(chunk);
      long at = g.offsets[c];
      while (into.hasRemaining()) {
        int n;
        try {
          n = channel.read(into, at + into.position());
        } catch (IOException e) {
          throw failure("read", e);
        }
        if (n < 0) {
          throw new IOException("the bins' spill file " + file + " ended early: was it truncated?");
        }
      }
      out.add(chunk);
    }
    if (g.size > 0) {
      out.add(Arrays.copyOf(g.buf, g.size));
    }
    return out;
  }

  /** Deletes the file. */
  @Override
  public void close() throws IOException {
    try {
      channel.close();
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private void writeChunk(Bin g) throws IOException {
    ByteBuffer from = ByteBuffer.wrap(g.buf, 0, g.size);
    try {
      while (from.hasRemaining()) {
        channel.write(from, end + from.position());
      }
    } catch (IOException e) {
      throw failure("write", e);
    }
    g.record(end, g.size);
    end += g.size;
    g.size = 0;
    if (g.buf.length > 2 * CHUNK_BYTES) { // grown for one large record: not kept for the next
      g.buf = new byte[CHUNK_BYTES + 1024];
    }
  }

  /** Names the file: the JDK's "No space left on device" does not. */
  private IOException failure(String what, IOException e) {
    return new IOException(
        "cannot " + what + " the bins' spill file " + file + ": " + e.getMessage(), e);
  }

  /** One bin's open chunk and where its written chunks are. */
  private static final class Bin {
    byte[] buf = new byte[CHUNK_BYTES + 1024];
    int size;
    long[] offsets = new long[4];
    int[] lengths = new int[4];
    int chunks;

    void record(long offset, int length) {
      if (chunks == offsets.length) {
        offsets = Arrays.copyOf(offsets, chunks * 2);
        lengths = Arrays.copyOf(lengths, chunks * 2);
      }
      offsets[chunks] = offset;
      lengths[chunks] = length;
      chunks++;
    }
  }
}
