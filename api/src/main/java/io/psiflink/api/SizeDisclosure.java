package io.psiflink.api;

import java.util.Locale;

/**
 * What a party lets its peer learn of its set's size (the job's {@code PublicSize} carries the
 * arithmetic): {@code rounded} (the default), {@code exact} or {@code declared:N}. The option's text
 * form, typed. Immutable.
 *
 * @param policy which of the three
 * @param declared N of {@code declared:N}, else 0
 */
public record SizeDisclosure(Policy policy, long declared) {

  /** The three policies. */
  public enum Policy { ROUNDED, DECLARED, EXACT }

  public static final SizeDisclosure ROUNDED = new SizeDisclosure(Policy.ROUNDED, 0);
  public static final SizeDisclosure EXACT = new SizeDisclosure(Policy.EXACT, 0);

  public SizeDisclosure {
    if (policy == null) {
      throw new IllegalArgumentException("a public size policy is required");
    }
    if (policy == Policy.DECLARED ? declared < 0 : declared != 0) {
      throw new IllegalArgumentException("only declared:N has a size, N >= 0");
    }
  }

  /** {@code rounded}, {@code exact} or {@code declared:N} (N an integer, 1_000_000 and 1e6 too). */
  public static SizeDisclosure parse(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("rounded")) {
      return ROUNDED;
    }
    if (t.equals("exact")) {
      return EXACT;
    }
    if (t.startsWith("declared:")) {
      String n = t.substring("declared:".length()).replace("_", "");
      try {
        long v;
        if (n.contains("e")) {
          double d = Double.parseDouble(n);
          if (d != Math.rint(d) || d < 0 || d > 9e18) {
            throw new NumberFormatException();
          }
          v = (long) d;
        } else {
          v = Long.parseLong(n);
        }
        if (v >= 0) {
          return new SizeDisclosure(Policy.DECLARED, v);
        }
      } catch (NumberFormatException e) {
        // falls through to the error naming the forms
      }
    }
    throw new IllegalArgumentException("public size must be rounded, exact or declared:N (N a row "
        + "count >= 0), not '" + text + "'");
  }

  /** The form {@link #parse} reads. */
  public String text() {
    return switch (policy) {
      case ROUNDED -> "rounded";
      case EXACT -> "exact";
      case DECLARED -> "declared:" + declared;
    };
  }

  @Override
  public String toString() {
    return text();
  }
}
