package io.psiflink.api;

/**
 * A command line that cannot be run: an unknown, missing, repeated or malformed option. The message
 * names the option; {@link #usage()} is the generated help, for callers that print it too.
 */
public final class UsageException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String usage;

  public UsageException(String message) {
    this(message, null);
  }

  public UsageException(String message, String usage) {
    super(message);
    this.usage = usage;
  }

  /** The help text of the command, or null when the problem was found outside a parse. */
  public String usage() {
    return usage;
  }

  /** The same problem with the command's help attached. */
  UsageException withUsage(String text) {
    return new UsageException(getMessage(), text);
  }
}
