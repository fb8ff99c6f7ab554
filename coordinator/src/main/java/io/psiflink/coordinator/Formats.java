package io.psiflink.coordinator;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.psiflink.api.JoinMode;
import io.psiflink.api.OutputFormat;
import io.psiflink.api.Prefilter;
import java.io.IOException;

/**
 * The coordinator's one vocabulary of table formats is {@link OutputFormat} (api/, the type of the
 * job's {@code --format}): a dataset's format and an output's. The API, the audit log and the
 * configuration show it in lower case ({@code avro}); the database stores its name ({@code AVRO}).
 * connectors' TableFormat (extensions) is met by name only where files are looked at
 * (DatasetRegistry).
 */
final class Formats {
  private Formats() {}

  /**
   * A format as a request gives it (any case).
   *
   * @throws ApiException 400 naming {@code field}
   */
  static OutputFormat parse(String text, String field) {
    try {
      return OutputFormat.parse(text);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw ApiException.badRequest(field, "must be one of csv, avro, parquet");
    }
  }

  /** A stored format (its name), or null. */
  static OutputFormat stored(String name) {
    return name == null ? null : OutputFormat.valueOf(name);
  }

  /** A format to store: its name, or null. */
  static String store(OutputFormat f) {
    return f == null ? null : f.name();
  }

  /**
   * Jackson: a format as its lower-case text. {@code configKeys}: an unreadable value throws an
   * IllegalArgumentException naming the configuration key ({@code config: output.format ...});
   * otherwise Jackson's own error for a bad value.
   */
  static SimpleModule jsonModule(boolean configKeys) {
    SimpleModule m = new SimpleModule("psi-formats");
    m.addSerializer(
        OutputFormat.class,
        new JsonSerializer<OutputFormat>() {
          @Override
          public void serialize(OutputFormat f, JsonGenerator g, SerializerProvider p)
              throws IOException {
            g.writeString(f.text());
          }
        });
    m.addDeserializer(
        OutputFormat.class,
        new JsonDeserializer<OutputFormat>() {
          @Override
          public OutputFormat deserialize(JsonParser p, DeserializationContext ctx)
              throws IOException {
            String text = p.getValueAsString();
            try {
              return OutputFormat.parse(text);
            } catch (IllegalArgumentException | NullPointerException e) {
              if (configKeys) {
                String key =
                    p.getParsingContext().pathAsPointer().toString().substring(1).replace('/', '.');
                throw new IllegalArgumentException("config: " + key + " " + e.getMessage(), e);
              }
              return (OutputFormat)
                  ctx.handleWeirdStringValue(OutputFormat.class, text, "not a format");
            }
          }
        });
    // a join mode and a prefilter are their lower-case text too (both, labeled; none, helper);
    // anything else is Jackson's error naming the value, e.g. a peer's session with an unknown mode
    addTextEnum(m, JoinMode.class, JoinMode::text, JoinMode::parse, "must be both or labeled");
    addTextEnum(
        m, Prefilter.class, Prefilter::text, Prefilter::parse, "must be none, helper or auto");
    return m;
  }

  /**
   * Writes {@code type} as {@code text} and reads it with {@code parse}; {@code expected} says what
   * a bad value should be.
   */
  private static <E> void addTextEnum(
      SimpleModule m,
      Class<E> type,
      java.util.function.Function<E, String> text,
      java.util.function.Function<String, E> parse,
      String expected) {
    m.addSerializer(
        type,
        new JsonSerializer<E>() {
          @Override
          public void serialize(E value, JsonGenerator g, SerializerProvider p) throws IOException {
            g.writeString(text.apply(value));
          }
        });
    m.addDeserializer(
        type,
        new JsonDeserializer<E>() {
          @Override
          public E deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
            String value = p.getValueAsString();
            try {
              return parse.apply(value);
            } catch (IllegalArgumentException | NullPointerException e) {
              return type.cast(ctx.handleWeirdStringValue(type, value, expected));
            }
          }
        });
  }
}
