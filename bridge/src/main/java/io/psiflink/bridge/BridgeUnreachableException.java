package io.psiflink.bridge;

/**
 * The relay could not be reached, or was shutting down, before the stream paired: nothing of the
 * stream's session was exchanged, so opening it again is safe (BridgeClient.open does, within the
 * pair timeout, so that a relay that restarts does not fail the jobs that dial it).
 */
public class BridgeUnreachableException extends BridgeException {
  private static final long serialVersionUID = 1L;

  public BridgeUnreachableException(String message, Throwable cause) {
    super(message, cause);
  }
}
