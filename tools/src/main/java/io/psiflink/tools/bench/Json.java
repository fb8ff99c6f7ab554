package io.psiflink.tools.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * The JSON the tools print (bench, table generator, insecure baseline, {@code ./psi local}),
 * through Jackson. The field names are the ones ./psi, the docs and the benchmark notes read;
 * measurements keep the three decimals they always had.
 */
public final class Json {
  // configured here once and only read afterwards (ObjectMapper is thread-safe then)
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  /** A new, empty object whose fields print in insertion order. */
  public static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  /** A measurement as printed: rounded half up to three decimals ({@code 1.500}). */
  public static BigDecimal three(double value) {
    return BigDecimal.valueOf(value).setScale(3, RoundingMode.HALF_UP);
  }

  /** {@link #three(double)}, or null (JSON {@code null}) for NaN and infinities. */
  public static BigDecimal threeOrNull(double value) {
    return Double.isFinite(value) ? three(value) : null;
  }

  /** One line of JSON. */
  public static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree of plain values did not print: " + e.getMessage(), e);
    }
  }

  /** Parses a line another tool printed. */
  public static JsonNode parse(String text) throws JsonProcessingException {
    return MAPPER.readTree(text);
  }
}
