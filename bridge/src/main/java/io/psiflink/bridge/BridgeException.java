package io.psiflink.bridge;

import java.io.IOException;

/**
 * A bridge operation failed. The message names the session, channel and attempt where known and
 * says what went wrong in plain words (never a raw gRPC status dump).
 */
public class BridgeException extends IOException {
  private static final long serialVersionUID = 1L;

  public BridgeException(String message) {
    super(message);
  }

  public BridgeException(String message, Throwable cause) {
    super(message, cause);
  }
}
