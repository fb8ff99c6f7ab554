package io.psiflink.coordinator;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.psiflink.api.Role;
import java.io.IOException;

/**
 * The coordinator's glue around {@link Role} (which has no JSON binding of its own, api/ carries no
 * Jackson): its JSON form is its label ({@code "A"}).
 */
final class Roles {
  private Roles() {}

  /**
   * A role of a two-party join as a request gives it: {@code A}/{@code a} or {@code B}/{@code b}
   * (null: A, the receiver of the joined rows).
   *
   * @throws ApiException 400 naming {@code field} for anything else
   */
  static Role twoParty(String text, String field) {
    if (text == null) {
      return Role.A;
    }
    return switch (text) {
      case "A", "a" -> Role.A;
      case "B", "b" -> Role.B;
      default ->
          throw ApiException.badRequest(
              field, "must be A (table a, receives the joined rows) or B (table b)");
    };
  }

  /**
   * The party of a two-party query whose table qualifier ({@link Role#table()}) is {@code table}: A
   * for {@code a}, B for {@code b}; null for any other text.
   */
  static Role ofTable(String table) {
    for (Role r : new Role[] {Role.A, Role.B}) {
      if (r.table().equals(table)) {
        return r;
      }
    }
    return null;
  }

  /** Jackson: a role as its label. */
  static SimpleModule jsonModule() {
    SimpleModule m = new SimpleModule("psi-roles");
    m.addSerializer(
        Role.class,
        new JsonSerializer<Role>() {
          @Override
          public void serialize(Role r, JsonGenerator g, SerializerProvider p) throws IOException {
            g.writeString(r.label());
          }
        });
    m.addDeserializer(
        Role.class,
        new JsonDeserializer<Role>() {
          @Override
          public Role deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
            String text = p.getValueAsString();
            try {
              return Role.parse(text);
            } catch (IllegalArgumentException | NullPointerException e) {
              return (Role) ctx.handleWeirdStringValue(Role.class, text, "not a role");
            }
          }
        });
    return m;
  }
}
