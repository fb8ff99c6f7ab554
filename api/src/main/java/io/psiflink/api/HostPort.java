package io.psiflink.api;

import java.util.Objects;

/** A TCP endpoint, {@code HOST:PORT} (the host may be an IPv6 literal in brackets). Immutable. */
public record HostPort(String host, int port) {

  public HostPort {
    Objects.requireNonNull(host, "host");
    if (host.isEmpty() || port < 1 || port > 65535) {
      throw new IllegalArgumentException(
          "must be HOST:PORT with a port in 1..65535, not '" + host + ":" + port + "'");
    }
  }

  /** {@code HOST:PORT}. */
  public static HostPort parse(String text) {
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException("must be HOST:PORT, not '" + text + "'");
    }
    try {
      return new HostPort(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("must be HOST:PORT, not '" + text + "'");
    }
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}
