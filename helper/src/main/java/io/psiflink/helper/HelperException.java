package io.psiflink.helper;

/**
 * The exchange with the helper failed after the relay paired this party with it: the helper refused
 * the session or aborted it, sent something that does not verify or open, or made no progress
 * within the request's timeout. The message names the helper and the cause; it never carries filter
 * content.
 */
public final class HelperException extends Exception {
  private static final long serialVersionUID = 1L;

  public HelperException(String message) {
    super(message);
  }

  public HelperException(String message, Throwable cause) {
    super(message, cause);
  }
}
