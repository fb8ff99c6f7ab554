package io.psiflink.coordinator;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Checks on what the peer coordinator sends and on the local paths built from it. The peer is
 * another organisation: an id it supplies (query, session) must be a canonical UUID before it is
 * stored or used, and every path this coordinator builds from a base and an id must stay a direct
 * child of that base after normalisation, for local paths and URI locations ({@code hdfs://...})
 * alike. Both checks are applied, so that neither alone has to be right.
 */
final class Confined {
  private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*:.*");
  private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");

  /** host:port, the host a DNS name, IPv4 address or bracketed IPv6 address. */
  private static final Pattern ENDPOINT =
      Pattern.compile("(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\\[[0-9A-Fa-f:.]{2,45}]):[0-9]{1,5}");

  private Confined() {}

  /** Whether {@code s} is a UUID in canonical form (lower-case, 8-4-4-4-12 hex digits). */
  static boolean isUuid(String s) {
    if (s == null || s.length() != 36) {
      return false;
    }
    try {
      return UUID.fromString(s).toString().equals(s);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** Whether {@code s} is a SHA-256 fingerprint as sessions carry it (64 lower-case hex). */
  static boolean isFingerprint(String s) {
    return s != null && HEX64.matcher(s).matches();
  }

  /**
   * A free text another organisation sent (a reason), at most 500 characters with control
   * characters replaced, before it is stored or shown.
   */
  static String shortText(String s) {
    String t = s.length() > 500 ? s.substring(0, 500) + "..." : s;
    return t.replaceAll("\\p{Cntrl}", "?");
  }

  /** Whether {@code s} is a bridge endpoint {@code host:port} with a port in 1..65535. */
  static boolean isEndpoint(String s) {
    if (s == null || !ENDPOINT.matcher(s).matches()) {
      return false;
    }
    int port = Integer.parseInt(s.substring(s.lastIndexOf(':') + 1));
    return port >= 1 && port <= 65535;
  }

  /**
   * {@code base/child} on the local file system, normalised.
   *
   * @throws IllegalArgumentException if the result is not a direct child of {@code base}
   */
  static Path under(Path base, String child) {
    Path b = base.toAbsolutePath().normalize();
    if (!plainSegment(child)) {
      throw new IllegalArgumentException(
          "refusing the path segment '" + child + "' under " + b + ": not a plain name");
    }
    Path p = b.resolve(child).normalize();
    if (!b.equals(p.getParent())) {
      throw new IllegalArgumentException("refusing " + p + ": it is not directly under " + b);
    }
    return p;
  }

  /**
   * {@code base/child} for a location that is a local path or a URI ({@code hdfs://nn/out}, {@code
   * s3://bucket/x}, {@code file:///x}), normalised; the scheme and authority stay the base's.
   *
   * @throws IllegalArgumentException if the result is not a direct child of {@code base}
   */
  static String under(String base, String child) {
    String b = base.replaceAll("/+$", "");
    if (!SCHEME.matcher(b).matches()) {
      return under(Path.of(b.isEmpty() ? "/" : b), child).toString();
    }
    if (!plainSegment(child)) {
      throw new IllegalArgumentException(
          "refusing the path segment '" + child + "' under " + base + ": not a plain name");
    }
    try {
      URI bu = new URI(b).normalize();
      URI cu = new URI(b + "/" + child).normalize();
      String bp = bu.getPath() == null ? "" : bu.getPath().replaceAll("/+$", "");
      String cp = cu.getPath();
      if (bu.isOpaque()
          || cu.isOpaque()
          || cp == null
          || !java.util.Objects.equals(bu.getScheme(), cu.getScheme())
          || !java.util.Objects.equals(bu.getRawAuthority(), cu.getRawAuthority())
          || cu.getRawQuery() != null
          || cu.getRawFragment() != null
          || !cp.equals(bp + "/" + child)) {
        throw new IllegalArgumentException("refusing " + cu + ": it is not directly under " + bu);
      }
      return cu.toString();
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "refusing the location " + base + "/" + child + ": " + e.getReason());
    }
  }

  /** A single path segment: no separators, not "." or "..", no control characters. */
  private static boolean plainSegment(String s) {
    if (s == null || s.isEmpty() || s.equals(".") || s.equals("..")) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch == '/'
          || ch == '\\'
          || ch == ':'
          || ch == '%'
          || ch == '?'
          || ch == '#'
          || ch < 0x20
          || ch == 0x7f) {
        return false;
      }
    }
    return true;
  }
}
