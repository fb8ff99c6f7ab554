package io.psiflink.nativepsi;

import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable protocol parameters, rendered for the native API as {@code "k=v,k=v"} (insertion order,
 * no spaces). Keys and values are checked when added, so a rendered string always parses back to
 * the same map.
 *
 * <pre>{@code
 * PsiParams p = PsiParams.builder()
 *     .receiverSize(4096).senderSize(4096).instance(17).output(PsiParams.Output.BOTH)
 *     .build();                        // "receiver_size=4096,sender_size=4096,instance=17,output=both"
 * }</pre>
 *
 * <p>Which keys a protocol accepts is the native library's business (unknown keys give {@link
 * PsiStatus#ARGUMENT} when the session is created); see {@code docs/protocols.md}.
 */
public final class PsiParams {
  /** Parameter key: the receiver's element count (public; both parties pass the same). */
  public static final String RECEIVER_SIZE = "receiver_size";

  /** Parameter key: the sender's element count (public; both parties pass the same). */
  public static final String SENDER_SIZE = "sender_size";

  /**
   * Parameter key: the 256-bit run instance, unique per online run under one setup (bin, attempt
   * and both parties' nonce material), as 64 hex digits; a plain decimal u64 is accepted too and
   * means that number zero-extended to 256 bits (tests, benchmarks). Every per-run key is derived
   * from it.
   */
  public static final String INSTANCE = "instance";

  /** Length of a full instance in bytes, see {@link Builder#instance(byte[])}. */
  public static final int INSTANCE_BYTES = 32;

  /** Parameter key: the length in bytes of every label of an {@code output=labels} run. */
  public static final String LABEL = "label";

  /** Parameter key: who learns the intersection, see {@link Output}. */
  public static final String OUTPUT = "output";

  /** Who learns the intersection indices. */
  public enum Output {
    /** Only the receiver. */
    RECEIVER("receiver"),
    /** The receiver and the sender (each learns its own indices). */
    BOTH("both"),
    /**
     * Only the size of the intersection, to the receiver; no indices to either party ({@code ecdh}
     * only: the cardinality).
     */
    CARDINALITY("cardinality"),
    /**
     * The receiver learns its intersecting indices and the sender's label of each ({@link
     * PsiSession#setLabels}, {@link PsiSession#resultLabels}); the sender learns nothing, not even
     * the size.
     */
    LABELS("labels");

    private final String value;

    Output(String value) {
      this.value = value;
    }

    /**
     * The parameter value: {@code receiver}, {@code both}, {@code cardinality} or {@code labels}.
     */
    public String value() {
      return value;
    }
  }

  private static final PsiParams EMPTY = new PsiParams(Map.of(), "");

  private final Map<String, String> values;
  private final String rendered;

  private PsiParams(Map<String, String> values, String rendered) {
    this.values = values;
    this.rendered = rendered;
  }

  /** No parameters. */
  public static PsiParams empty() {
    return EMPTY;
  }

  /** A new, empty builder. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Parses {@code "k=v,k=v"} (the format {@link #toString()} produces); {@code ""} is empty.
   *
   * @throws IllegalArgumentException on a malformed pair or a repeated key
   */
  public static PsiParams parse(String text) {
    Objects.requireNonNull(text, "text");
    Builder b = builder();
    if (text.isEmpty()) {
      return b.build();
    }
    for (String pair : text.split(",", -1)) {
      int eq = pair.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("parameter without '=': \"" + pair + "\"");
      }
      String key = pair.substring(0, eq);
      if (b.values.containsKey(key)) {
        throw new IllegalArgumentException("repeated parameter: " + key);
      }
      b.with(key, pair.substring(eq + 1));
    }
    return b.build();
  }

  /** A builder holding these parameters, to derive a variant (e.g. another {@code instance}). */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.values.putAll(values);
    return b;
  }

  /** The value of a key, if present. */
  public Optional<String> get(String key) {
    return Optional.ofNullable(values.get(key));
  }

  /** All parameters, in insertion order (unmodifiable). */
  public Map<String, String> asMap() {
    return values;
  }

  /** The native form, {@code "k=v,k=v"}. */
  @Override
  public String toString() {
    return rendered;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PsiParams && ((PsiParams) o).values.equals(values);
  }

  @Override
  public int hashCode() {
    return values.hashCode();
  }

  /**
   * Collects parameters; a later value for the same key replaces the earlier one. Not thread-safe.
   */
  public static final class Builder {
    private final LinkedHashMap<String, String> values = new LinkedHashMap<>();

    private Builder() {}

    /** Sets {@value PsiParams#RECEIVER_SIZE}. */
    public Builder receiverSize(long count) {
      return with(RECEIVER_SIZE, nonNegative(count, RECEIVER_SIZE));
    }

    /** Sets {@value PsiParams#SENDER_SIZE}. */
    public Builder senderSize(long count) {
      return with(SENDER_SIZE, nonNegative(count, SENDER_SIZE));
    }

    /**
     * Sets {@value PsiParams#INSTANCE} to a u64 (decimal; the native side zero-extends it to 256
     * bits); negative longs are their unsigned twin. For tests and benchmarks: a production run
     * passes 32 bytes of instance material with {@link #instance(byte[])}.
     */
    public Builder instance(long instance) {
      return with(INSTANCE, Long.toUnsignedString(instance));
    }

    /**
     * Sets {@value PsiParams#INSTANCE} to 256 bits, rendered as 64 lowercase hex digits (byte 0
     * first). The array is copied.
     *
     * @throws IllegalArgumentException unless {@code instance32} is exactly 32 bytes
     */
    public Builder instance(byte[] instance32) {
      Objects.requireNonNull(instance32, "instance32");
      if (instance32.length != INSTANCE_BYTES) {
        throw new IllegalArgumentException(
            "instance must be exactly "
                + INSTANCE_BYTES
                + " bytes (256 bits), got "
                + instance32.length);
      }
      return with(INSTANCE, HexFormat.of().formatHex(instance32));
    }

    /** Sets {@value PsiParams#LABEL}: the length of every label, in bytes, at least 1. */
    public Builder label(int bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException(LABEL + " must be at least 1 byte, got " + bytes);
      }
      return with(LABEL, Integer.toString(bytes));
    }

    /** Sets {@value PsiParams#OUTPUT}. */
    public Builder output(Output output) {
      return with(OUTPUT, Objects.requireNonNull(output, "output").value());
    }

    /**
     * Sets any key.
     *
     * @throws IllegalArgumentException if key or value is empty or contains ',', '=', whitespace or
     *     a control character (the native format has no escaping)
     */
    public Builder with(String key, String value) {
      values.put(check("key", key), check("value", value));
      return this;
    }

    /** Immutable parameters with the values set so far. */
    public PsiParams build() {
      if (values.isEmpty()) {
        return EMPTY;
      }
      StringBuilder sb = new StringBuilder();
      for (Map.Entry<String, String> e : values.entrySet()) {
        if (sb.length() > 0) {
          sb.append(',');
        }
        sb.append(e.getKey()).append('=').append(e.getValue());
      }
      return new PsiParams(Collections.unmodifiableMap(new LinkedHashMap<>(values)), sb.toString());
    }

    private static String nonNegative(long count, String key) {
      if (count < 0) {
        throw new IllegalArgumentException(key + " must be >= 0: " + count);
      }
      return Long.toString(count);
    }

    private static String check(String what, String s) {
      Objects.requireNonNull(s, what);
      if (s.isEmpty()) {
        throw new IllegalArgumentException("empty parameter " + what);
      }
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (c == ',' || c == '=' || Character.isWhitespace(c) || Character.isISOControl(c)) {
          throw new IllegalArgumentException(
              "parameter " + what + " \"" + s + "\" contains a forbidden character at " + i);
        }
      }
      return s;
    }
  }
}
