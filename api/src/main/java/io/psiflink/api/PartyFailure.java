package io.psiflink.api;

/**
 * The line a party JVM prints last when it fails, which whoever launched it reads back as the
 * reason (the coordinator, {@code ./psi local}): "psi party A failed: REASON", or "psi party:
 * REASON" when its command line was refused before it knew its party.
 */
public final class PartyFailure {
  private static final String FAILED = " failed: ";
  private static final String COMMAND_LINE = "psi party: ";

  private PartyFailure() {}

  /** The failure line of {@code party}. */
  public static String line(String party, String reason) {
    return "psi party " + party + FAILED + reason;
  }

  /** The failure line of a refused command line. */
  public static String commandLineLine(String reason) {
    return COMMAND_LINE + reason;
  }

  /** The reason in a failure line, as it was printed; null for any other line. */
  public static String reason(String line) {
    int i = line.indexOf(FAILED);
    if (line.startsWith("psi party ") && i > 0) {
      return line.substring(i + FAILED.length());
    }
    return line.startsWith(COMMAND_LINE) ? line.substring(COMMAND_LINE.length()) : null;
  }
}
