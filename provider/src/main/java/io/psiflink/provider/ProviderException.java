package io.psiflink.provider;

/**
 * A run with the provider failed after the relay paired the stream: the provider refused or aborted
 * it (its reason names the party at fault), a message did not verify or open, the native protocol
 * refused a message (the role and the native status are named), or the provider stayed silent too
 * long. The message never carries set content, and quotes a peer's text only checked and truncated.
 */
public final class ProviderException extends Exception {
  private static final long serialVersionUID = 1L;

  public ProviderException(String message) {
    super(message);
  }

  public ProviderException(String message, Throwable cause) {
    super(message, cause);
  }
}
