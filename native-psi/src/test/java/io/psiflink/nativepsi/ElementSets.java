package io.psiflink.nativepsi;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Test data: two sets of distinct random 16-byte elements with a chosen overlap, and the plaintext
 * oracle (a HashSet intersection) for what each party must learn.
 */
final class ElementSets {
  static final int LEN = 16;

  final byte[] receiver;
  final int receiverCount;
  final byte[] sender;
  final int senderCount;
  final int overlap;

  private ElementSets(
      byte[] receiver, int receiverCount, byte[] sender, int senderCount, int overlap) {
    this.receiver = receiver;
    this.receiverCount = receiverCount;
    this.sender = sender;
    this.senderCount = senderCount;
    this.overlap = overlap;
  }

  /**
   * Receiver and sender sets of the given sizes sharing exactly {@code overlap} elements, shuffled.
   */
  static ElementSets random(long seed, int receiverCount, int senderCount, int overlap) {
    if (overlap > Math.min(receiverCount, senderCount)) {
      throw new IllegalArgumentException("overlap larger than a set");
    }
    Random rnd = new Random(seed);
    Set<ByteBuffer> seen = new HashSet<>();
    List<byte[]> common = fresh(rnd, seen, overlap);
    List<byte[]> r = new ArrayList<>(common);
    r.addAll(fresh(rnd, seen, receiverCount - overlap));
    List<byte[]> s = new ArrayList<>(common);
    s.addAll(fresh(rnd, seen, senderCount - overlap));
    Collections.shuffle(r, rnd);
    Collections.shuffle(s, rnd);
    return new ElementSets(concat(r), receiverCount, concat(s), senderCount, overlap);
  }

  /** Indices i (ascending) of {@code mine} whose element occurs in {@code theirs}. */
  static long[] expected(byte[] mine, int mineCount, byte[] theirs, int theirsCount) {
    Set<ByteBuffer> other = new HashSet<>();
    for (int i = 0; i < theirsCount; i++) {
      other.add(ByteBuffer.wrap(theirs, i * LEN, LEN).slice());
    }
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < mineCount; i++) {
      if (other.contains(ByteBuffer.wrap(mine, i * LEN, LEN).slice())) {
        out.add((long) i);
      }
    }
    return out.stream().mapToLong(Long::longValue).toArray();
  }

  long[] expectedReceiver() {
    return expected(receiver, receiverCount, sender, senderCount);
  }

  long[] expectedSender() {
    return expected(sender, senderCount, receiver, receiverCount);
  }

  PsiParams params(long instance) {
    return PsiParams.builder()
        .receiverSize(receiverCount)
        .senderSize(senderCount)
        .instance(instance)
        .output(PsiParams.Output.BOTH)
        .build();
  }

  @Override
  public String toString() {
    return "receiver_size="
        + receiverCount
        + ", sender_size="
        + senderCount
        + ", overlap="
        + overlap;
  }

  static byte[] seed(Random rnd) {
    byte[] s = new byte[PsiSession.SEED_BYTES];
    rnd.nextBytes(s);
    return s;
  }

  private static List<byte[]> fresh(Random rnd, Set<ByteBuffer> seen, int n) {
    List<byte[]> out = new ArrayList<>(n);
    while (out.size() < n) {
      byte[] e = new byte[LEN];
      rnd.nextBytes(e);
      if (seen.add(ByteBuffer.wrap(e))) {
        out.add(e);
      }
    }
    return out;
  }

  private static byte[] concat(List<byte[]> elements) {
    byte[] out = new byte[elements.size() * LEN];
    for (int i = 0; i < elements.size(); i++) {
      System.arraycopy(elements.get(i), 0, out, i * LEN, LEN);
    }
    return out;
  }
}
