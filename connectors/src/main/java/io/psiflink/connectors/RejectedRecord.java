package io.psiflink.connectors;

/** A record is not a row of the table; the message says why. Thrown often, so no stack trace. */
final class RejectedRecord extends Exception {
  private static final long serialVersionUID = 1L;

  RejectedRecord(String reason) {
    super(reason, null, false, false);
  }
}
