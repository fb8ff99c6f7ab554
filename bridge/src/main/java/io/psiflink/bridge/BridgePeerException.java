package io.psiflink.bridge;

/**
 * The other party ended the stream badly: it aborted, disconnected, restarted the stream or sent a
 * malformed frame.
 */
public class BridgePeerException extends BridgeException {
  private static final long serialVersionUID = 1L;

  public BridgePeerException(String message) {
    super(message);
  }

  public BridgePeerException(String message, Throwable cause) {
    super(message, cause);
  }
}
