package io.psiflink.connectors;

import org.apache.flink.streaming.api.functions.sink.filesystem.PartFileInfo;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.CheckpointRollingPolicy;

/**
 * Starts a new part file once the current one has reached a size. In BATCH mode there are no
 * checkpoints, so without this every sink subtask would write a single part file of any size.
 */
final class SizeRollingPolicy<IN> extends CheckpointRollingPolicy<IN, String> {
  private static final long serialVersionUID = 1L;

  private final long maxPartBytes;

  SizeRollingPolicy(long maxPartBytes) {
    if (maxPartBytes <= 0) {
      throw new IllegalArgumentException("maxPartBytes must be positive: " + maxPartBytes);
    }
    this.maxPartBytes = maxPartBytes;
  }

  @Override
  public boolean shouldRollOnEvent(PartFileInfo<String> part, IN element)
      throws java.io.IOException {
    return part.getSize() >= maxPartBytes;
  }

  @Override
  public boolean shouldRollOnProcessingTime(PartFileInfo<String> part, long currentTime) {
    return false;
  }
}
