package io.psiflink.connectors;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.enumerate.FileEnumerator;
import org.apache.flink.core.fs.BlockLocation;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * One whole-file split per given path, with that very {@link Path} object: no directory walking and
 * no file filter, since {@link TableFiles} already chose the files (Flink's default enumerator
 * would drop a file named {@code _x.csv} even if given explicitly, and replaces each path by the
 * one its file system lists, which {@link PerFileFormat} could not map back). The hosts of the
 * file's blocks let Flink's default split assigner prefer local reads on HDFS.
 */
final class ListedFileEnumerator implements FileEnumerator {
  @Override
  public Collection<FileSourceSplit> enumerateSplits(Path[] paths, int minDesiredSplits)
      throws IOException {
    List<FileSourceSplit> splits = new ArrayList<>(paths.length);
    for (Path path : paths) {
      FileSystem fs = path.getFileSystem();
      FileStatus status = fs.getFileStatus(path);
      Set<String> hosts = new LinkedHashSet<>();
      for (BlockLocation b : fs.getFileBlockLocations(status, 0, status.getLen())) {
        hosts.addAll(List.of(b.getHosts()));
      }
      splits.add(
          new FileSourceSplit(
              String.valueOf(splits.size()),
              path,
              0,
              status.getLen(),
              status.getModificationTime(),
              status.getLen(),
              hosts.toArray(new String[0])));
    }
    return splits;
  }
}
