package io.psiflink.connectors;

/**
 * A table cannot be read or written as asked: unknown format, unusable header or schema, missing
 * column, unreadable file. The message names the path and what is wrong, so it can be shown as is.
 */
public class TableException extends Exception {
  private static final long serialVersionUID = 1L;

  public TableException(String message) {
    super(message);
  }

  public TableException(String message, Throwable cause) {
    super(message, cause);
  }
}
