package io.psiflink.provider;

import java.util.Arrays;

/**
 * What one bin's run gave a party.
 *
 * @param intersection indices (below the count passed to {@link ProviderLink#runBin}, ascending) of
 *     this party's elements that every party holds; copied in and out
 * @param setSize the run's agreed set size S (public: the largest demand of the n parties)
 * @param bytesSent bytes this party sent the provider on the bin's stream
 * @param bytesReceived bytes this party received from the provider on the bin's stream
 */
public record BinOutcome(long[] intersection, long setSize, long bytesSent, long bytesReceived) {
  public BinOutcome {
    intersection = intersection.clone();
  }

  @Override
  public long[] intersection() {
    return intersection.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BinOutcome b
        && Arrays.equals(intersection, b.intersection)
        && setSize == b.setSize
        && bytesSent == b.bytesSent
        && bytesReceived == b.bytesReceived;
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(intersection) * 31 + Long.hashCode(setSize);
  }

  @Override
  public String toString() {
    return "BinOutcome[intersection="
        + intersection.length
        + " elements, setSize="
        + setSize
        + ", bytesSent="
        + bytesSent
        + ", bytesReceived="
        + bytesReceived
        + "]";
  }
}
