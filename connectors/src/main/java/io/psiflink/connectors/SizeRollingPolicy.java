package io.psiflink.connectors;

import org.apache.flink.streaming.api.functions.sink.filesystem.PartFileInfo;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.CheckpointRollingPolicy;

/**
 * Starts a new part file once the current one has reached a size. In BATCH mode there are no
 * checkpoints, so without this every sink subtask would write a single part file of any size.
 *
 * <p>The size is looked at every {@link #CHECK_EVERY} rows, not at each: on a local file system a
 * part's size is a system call ({@code lseek}), which cost about 0.4 µs a row. A part can so end up
 * to that many rows longer than the limit.
 */
final class SizeRollingPolicy<IN> extends CheckpointRollingPolicy<IN, String> {
  private static final long serialVersionUID = 1L;

  static final int CHECK_EVERY = 64;

  private final long maxPartBytes;
  private transient int sinceCheck;

  SizeRollingPolicy(long maxPartBytes) {
    if (maxPartBytes <= 0) {
      throw new IllegalArgumentException("maxPartBytes must be positive: " + maxPartBytes);
    }
    this.maxPartBytes = maxPartBytes;
  }

  @Override
  public boolean shouldRollOnEvent(PartFileInfo<String> part, IN element)
      throws java.io.IOException {
    if (++sinceCheck < CHECK_EVERY) {
      return false;
    }
    sinceCheck = 0;
    return part.getSize() >= maxPartBytes;
  }

  @Override
  public boolean shouldRollOnProcessingTime(PartFileInfo<String> part, long currentTime) {
    return false;
  }
}
