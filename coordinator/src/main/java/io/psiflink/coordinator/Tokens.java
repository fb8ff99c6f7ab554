package io.psiflink.coordinator;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The API tokens a coordinator accepts, stored only as SHA-256 hashes.
 *
 * <p>A token is 32 random bytes (256 bits) from {@link SecureRandom}, written base64url. Because
 * tokens are high-entropy random values and not human-chosen passwords, a fast hash is enough: an
 * attacker who steals the tokens file would have to search a 2^256 space, which no amount of
 * hashing speed makes feasible, so a slow password hash (bcrypt, Argon2) would only cost CPU on
 * every request without adding security. Tokens are looked up by their hash, so the time a lookup
 * takes depends on the hash of the presented value, never on how much of a real token it matches.
 *
 * <p>The tokens file has one token per line: {@code <sha256-hex> <kind> <label>}, where kind is
 * {@code party} (this coordinator's own party: its people and tools) or {@code peer} (the other
 * party's coordinator); {@code #} starts a comment. {@code CoordinatorMain token <kind> <label>}
 * prints a new token and its line.
 */
public final class Tokens {
  /** Who is calling: this coordinator's party, or the peer coordinator. */
  public enum Kind {
    PARTY,
    PEER
  }

  /** An authenticated caller. */
  public record Principal(Kind kind, String label) {}

  private static final int TOKEN_BYTES = 32;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Map<String, Principal> byHash;

  private Tokens(Map<String, Principal> byHash) {
    this.byHash = Map.copyOf(byHash);
  }

  /** Reads a tokens file. */
  public static Tokens load(Path file) throws IOException {
    return parse(Files.readAllLines(file, StandardCharsets.UTF_8), file.toString());
  }

  static Tokens parse(List<String> lines, String source) {
    Map<String, Principal> map = new HashMap<>();
    int n = 0;
    for (String raw : lines) {
      n++;
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] parts = line.split("\\s+", 3);
      if (parts.length < 2 || !parts[0].matches("[0-9a-f]{64}")) {
        throw new IllegalArgumentException(
            source + " line " + n + ": expected '<sha256-hex> party|peer [label]'");
      }
      Kind kind =
          switch (parts[1]) {
            case "party" -> Kind.PARTY;
            case "peer" -> Kind.PEER;
            default ->
                throw new IllegalArgumentException(
                    source + " line " + n + ": kind must be party or peer, not " + parts[1]);
          };
      map.put(parts[0], new Principal(kind, parts.length > 2 ? parts[2] : parts[1]));
    }
    return new Tokens(map);
  }

  /** The caller a token belongs to, if any. */
  public Optional<Principal> authenticate(String token) {
    if (token == null || token.isEmpty() || token.length() > 256) {
      return Optional.empty();
    }
    String hash = sha256Hex(token);
    Principal p = byHash.get(hash);
    return Optional.ofNullable(p);
  }

  /**
   * Checks that every peer token names a known organisation (a coordinator with further peers tells
   * its callers apart by the label alone).
   *
   * @throws IllegalArgumentException naming the first label that names none
   */
  void requirePeerLabels(java.util.Set<String> organisations, String source) {
    for (Principal p : byHash.values()) {
      if (p.kind() == Kind.PEER && !organisations.contains(p.label())) {
        throw new IllegalArgumentException(
            source
                + ": the peer token labelled '"
                + p.label()
                + "' names no organisation of this coordinator "
                + organisations.stream().sorted().toList()
                + "; with peers configured, a peer token's label is the name of the organisation"
                + " it was issued to");
      }
    }
  }

  /** A new random token (256 bits, base64url without padding). */
  public static String newToken() {
    byte[] b = new byte[TOKEN_BYTES];
    RANDOM.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  /** The tokens-file line for a token. */
  public static String line(String token, Kind kind, String label) {
    return sha256Hex(token) + " " + kind.name().toLowerCase(java.util.Locale.ROOT) + " " + label;
  }

  public static String sha256Hex(String s) {
    return HexFormat.of().formatHex(sha256(s.getBytes(StandardCharsets.UTF_8)));
  }

  static byte[] sha256(byte[] b) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(b);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
