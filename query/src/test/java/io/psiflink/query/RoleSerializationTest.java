package io.psiflink.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.psiflink.api.Role;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.junit.jupiter.api.Test;

/**
 * The query's records that name a party travel through Java serialization (Flink ships them to its
 * operators): each comes back equal, with the very {@link Role#A}/{@link Role#B} constants.
 */
class RoleSerializationTest {
  @SuppressWarnings("unchecked")
  static <T> T roundTrip(T value) throws IOException, ClassNotFoundException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (T) in.readObject();
    }
  }

  @Test
  void resolvedJoinsAndTheirPartsComeBackEqual() throws Exception {
    ResolvedJoin r =
        JoinQueryResolveTest.resolve(
            "SELECT b.*, a.spend AS s FROM a JOIN b"
                + " ON a.card = b.card WHERE a.spend > 3 AND b.country = 'DE'");
    ResolvedJoin back = roundTrip(r);
    assertNotSame(r, back);
    assertEquals(r, back);
    assertSame(Role.A, back.a().side());
    assertSame(Role.B, back.b().side());
    for (int i = 0; i < r.output().size(); i++) {
      assertEquals(r.output().get(i), back.output().get(i));
      assertSame(r.output().get(i).side(), back.output().get(i).side());
    }
    assertEquals(
        new OutputColumn(Role.B, "card", "x"), roundTrip(new OutputColumn(Role.B, "card", "x")));
  }
}
