package io.psiflink.jobs.psi;

/** The peer's job sent something that does not follow the bin protocol; the bin attempt fails. */
public class PeerProtocolException extends Exception {
  private static final long serialVersionUID = 1L;

  public PeerProtocolException(String message) {
    super(message);
  }
}
