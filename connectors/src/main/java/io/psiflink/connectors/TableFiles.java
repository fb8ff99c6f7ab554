package io.psiflink.connectors;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * The files a table consists of (local, {@code file://} or {@code hdfs://}): one file, or the part
 * files of a directory, Hadoop style, which the source reads in parallel.
 *
 * <p>A directory's part files are its direct children that are files with a visible name ({@link
 * #isVisible}: markers such as {@code _SUCCESS} and hidden files such as {@code .part-0.crc} or
 * in-progress files are skipped), sorted by name. They must all have the same format extension, and
 * there must be at least one. A part's path is the directory's path as given plus its name.
 *
 * @param format the format of every file, by extension ({@link TableFormat#fromPath})
 * @param files the file paths, sorted by name; never empty
 * @param lengths the byte length of each file when it was listed, in the order of {@code files}
 * @param modified each file's modification time (epoch ms) when it was listed, in the same order
 */
public record TableFiles(
    TableFormat format, List<String> files, List<Long> lengths, List<Long> modified) {
  public TableFiles {
    files = List.copyOf(files);
    lengths = List.copyOf(lengths);
    modified = List.copyOf(modified);
    if (files.isEmpty() || files.size() != lengths.size() || files.size() != modified.size()) {
      throw new IllegalArgumentException(
          files.size()
              + " files with "
              + lengths.size()
              + " lengths and "
              + modified.size()
              + " times; need at least one file");
    }
  }

  /**
   * The files of the table at {@code path}, a file or a directory of part files.
   *
   * @throws TableException naming the path if it does not exist or cannot be listed, if a file's
   *     extension is not a table format, if a directory mixes formats or holds no part file
   */
  public static TableFiles of(String path) throws TableException {
    Path p = new Path(path);
    FileStatus status;
    FileStatus[] entries;
    try {
      FileSystem fs = p.getFileSystem();
      status = fs.getFileStatus(p);
      entries = status.isDir() ? fs.listStatus(p) : null;
    } catch (FileNotFoundException e) {
      throw new TableException("table '" + path + "' does not exist", e);
    } catch (IOException e) {
      throw new TableException("cannot read table '" + path + "': " + e.getMessage(), e);
    }
    if (!status.isDir()) {
      return new TableFiles(
          format(path),
          List.of(path),
          List.of(status.getLen()),
          List.of(status.getModificationTime()));
    }

    List<FileStatus> parts = new ArrayList<>();
    for (FileStatus e : entries == null ? new FileStatus[0] : entries) {
      if (!e.isDir() && isVisible(e.getPath().getName())) {
        parts.add(e);
      }
    }
    if (parts.isEmpty()) {
      throw new TableException(
          "table directory '"
              + path
              + "' holds no part files (names starting with _ or . are skipped)");
    }
    parts.sort(Comparator.comparing(e -> e.getPath().getName()));
    String first = parts.get(0).getPath().getName();
    TableFormat format = null;
    List<String> files = new ArrayList<>();
    List<Long> lengths = new ArrayList<>();
    List<Long> modified = new ArrayList<>();
    for (FileStatus e : parts) {
      String name = e.getPath().getName();
      TableFormat f;
      try {
        f = TableFormat.fromPath(name);
      } catch (IllegalArgumentException x) {
        throw new TableException(
            "table directory '"
                + path
                + "' holds '"
                + name
                + "', which is not .csv, .avro or .parquet (any case)",
            x);
      }
      if (format == null) {
        format = f;
      } else if (f != format) {
        throw new TableException(
            "table directory '"
                + path
                + "' mixes formats: '"
                + name
                + "' is "
                + f
                + " but '"
                + first
                + "' is "
                + format);
      }
      // the directory as given plus the name (not the listed path, which the file system may
      // have qualified), so that errors and quarantined rows show the user's own spelling
      files.add(new Path(p, name).toString());
      lengths.add(e.getLen());
      modified.add(e.getModificationTime());
    }
    return new TableFiles(format, files, lengths, modified);
  }

  /** Whether a file name is a data file rather than a hidden, in-progress or marker file. */
  public static boolean isVisible(String name) {
    return !name.startsWith(".") && !name.startsWith("_");
  }

  /** The total byte length of the files. */
  public long bytes() {
    return lengths.stream().mapToLong(Long::longValue).sum();
  }

  private static TableFormat format(String file) throws TableException {
    try {
      return TableFormat.fromPath(file);
    } catch (IllegalArgumentException e) {
      throw new TableException(e.getMessage(), e);
    }
  }
}
