package io.psiflink.bridge;

/** A wait ran out: the peer did not open its stream, did not send, or did not read in time. */
public class BridgeTimeoutException extends BridgeException {
  private static final long serialVersionUID = 1L;

  public BridgeTimeoutException(String message) {
    super(message);
  }

  public BridgeTimeoutException(String message, Throwable cause) {
    super(message, cause);
  }
}
